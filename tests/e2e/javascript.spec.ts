import { expect, test } from "@playwright/test";
import { site } from "../../app/config/site.ts";
import { allRoutes, contactRoute, contentRoutes } from "./routes";

/** Zero JavaScript where nothing is interactive, nothing from another origin, every page whole without scripts. */

for (const route of contentRoutes) {
  test(`${route.path} ships no JavaScript`, async ({ page }) => {
    const scripts: string[] = [];
    page.on("request", (r) => {
      if (r.resourceType() === "script") scripts.push(r.url());
    });
    await page.goto(route.path);
    await expect(page.locator('script:not([type="application/ld+json"])')).toHaveCount(0);
    await expect(page.locator('link[rel="modulepreload"]')).toHaveCount(0);
    expect(scripts).toEqual([]);
  });
}

test("/contact is the one page with JavaScript: one small module, no framework", async ({
  page,
}) => {
  const scripts: string[] = [];
  page.on("request", (r) => {
    if (r.resourceType() === "script") scripts.push(new URL(r.url()).pathname);
  });
  await page.goto(contactRoute.path, { waitUntil: "networkidle" });
  expect(scripts).toEqual([expect.stringMatching(/^\/assets\/contact-[0-9a-f]{10}\.js$/)]);
});

for (const route of allRoutes) {
  test(`${route.path} makes no request to another origin and logs no error`, async ({
    page,
    baseURL,
  }) => {
    const origin = new URL(baseURL ?? "").origin;
    const foreign: string[] = [];
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("request", (r) => {
      const url = new URL(r.url());
      if (url.origin !== origin) foreign.push(r.url());
    });
    await page.goto(route.path, { waitUntil: "networkidle" });
    // Bring lazy images into view, then let them load.
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForLoadState("networkidle");
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  });
}

test.describe("with JavaScript disabled", () => {
  test.use({ javaScriptEnabled: false });
  for (const route of allRoutes) {
    test(`${route.path} is complete and readable`, async ({ page }) => {
      const response = await page.goto(route.path);
      expect(response?.status()).toBe(200);
      await expect(page.locator("h1")).toHaveText(route.h1);
      await expect(page.getByRole("contentinfo")).toContainText(`© ${site.copyrightYear}`);
      // biome-ignore lint/performance/useDomNodeTextContent: the text a reader sees, not hidden nodes
      const text = await page.getByRole("main").innerText();
      expect(text.length).toBeGreaterThan(300);
    });
  }
});
