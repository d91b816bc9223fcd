import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CONTACT_API_PATH, DEFAULT_PUBLIC_KEY } from "../app/contact/api.ts";
import { serviceOptions } from "../app/contact/fields.ts";
import { launchChromium } from "../tests/support/chromium.ts";
import { startServer } from "../tests/support/server.ts";

/**
 * Screenshots for review: every page a visitor reads (home, services, blog list, an article,
 * contact, imprint, privacy), the not-found page, and the lead page behind a lead's links (Spam,
 * "I'm on it", one not valid), at 1440 px and
 * 375 px, light and dark, full page, into screenshots/ (git-ignored). Builds first if there is no
 * build. `npm run screenshots`.
 */

const root = new URL("../", import.meta.url).pathname;
const out = join(root, "screenshots");
const pages: Array<readonly [string, string]> = [
  ["home", "/"],
  ["services", "/services"],
  ["blog", "/blog"],
  ["article", "/blog/rent-or-buy-it-infrastructure"],
  ["contact", "/contact"],
  ["imprint", "/imprint"],
  ["privacy", "/privacy"],
  ["not-found", "/no-such-page"],
];

if (!existsSync(join(root, "build/server/index.js"))) {
  console.error("No build: run `npm run build` first.");
  process.exit(1);
}
mkdirSync(out, { recursive: true });
const server = await startServer({ SPAM_FILTER: "off" });
pages.push(...(await leadPages()), ["lead-not-valid", "/lead?t=not-a-link"]);
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

/** A lead sent as the contact page sends it; the pages its email's links open (the email is a file: no relay is set). */
async function leadPages(): Promise<Array<readonly [string, string]>> {
  const res = await fetch(`${server.url}${CONTACT_API_PATH}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${DEFAULT_PUBLIC_KEY}` },
    body: JSON.stringify({
      name: "Dana Whitfield",
      email: "dana.whitfield@example.org",
      company: "Laramie Family Dental",
      service: serviceOptions[0],
      message:
        "Our server is seven years old and our IT person retired. Could you look at our setup?",
    }),
  });
  if (res.status !== 201)
    throw new Error(`the lead was not taken: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  const file = join(server.dataDir, "mail", `${id}.eml`);
  for (let tries = 0; !existsSync(file); tries++) {
    if (tries > 100) throw new Error(`no email for ${id}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The text part, quoted-printable: soft breaks and =XX undone.
  const text = readFileSync(file, "utf8")
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  const links = [...text.matchAll(/https?:\/\/[^\s"<]+(\/lead\?t=[\w.%-]+)/g)].map(
    (m) => m[1] ?? "",
  );
  const byAction = (action: string) => links.find((l) => l.includes(`.${action}.`)) ?? "";
  return [
    ["lead-spam", byAction("spam")],
    ["lead-take", byAction("take")],
  ];
}
