import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { launchChromium } from "../tests/support/chromium.ts";
import { startServer } from "../tests/support/server.ts";

/**
 * Screenshots for review: every page a visitor reads (home, services, blog list, an article,
 * contact, imprint, privacy) and the not-found page, at 1440 px and
 * 375 px, light and dark, full page, into screenshots/ (git-ignored). Builds first if there is no
 * build. `npm run screenshots`.
 */

const root = new URL("../", import.meta.url).pathname;
const out = join(root, "screenshots");
const pages = [
  ["home", "/"],
  ["services", "/services"],
  ["blog", "/blog"],
  ["article", "/blog/rent-or-buy-it-infrastructure"],
  ["contact", "/contact"],
  ["imprint", "/imprint"],
  ["privacy", "/privacy"],
  ["not-found", "/no-such-page"],
] as const;

if (!existsSync(join(root, "build/server/index.js"))) {
  console.error("No build: run `npm run build` first.");
  process.exit(1);
}
mkdirSync(out, { recursive: true });
const server = await startServer({});
const browser = await launchChromium();
try {
  for (const width of [1440, 375]) {
    for (const colorScheme of ["light", "dark"] as const) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
      const page = await context.newPage();
      for (const [name, path] of pages) {
        await page.goto(`${server.url}${path}`, { waitUntil: "networkidle" });
        // Lazy images below the fold load as a visitor scrolls: scroll, then let them arrive.
        await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
        await page.waitForLoadState("networkidle");
        await page.evaluate(() => window.scrollTo(0, 0));
        const file = join(out, `${name}-${width}-${colorScheme}.png`);
        await page.screenshot({ path: file, fullPage: true });
        console.log(file.slice(root.length));
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.stop();
}
