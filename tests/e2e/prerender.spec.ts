import { expect, test } from "@playwright/test";
import { type RunningServer, startServer } from "../support/server.ts";

/**
 * Prerendered navigation with no script (issue "Every click instant…", part 1): hovering a link to a
 * page makes Chromium request it with `Sec-Purpose: prefetch;prerender`; links to what must not load
 * early are never requested. (DevTools keeps a prerendered page from being activated, so the request
 * is what a test can see: the server logs it with its purpose.)
 */

let server: RunningServer;
test.beforeAll(async () => {
  server = await startServer();
});
test.afterAll(() => server?.stop());

type Line = { path?: string; purpose?: string };
const requests = (): Line[] =>
  server
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);

test("hovering a page's link prerenders it; excluded links are never loaded early", async ({
  page,
}) => {
  await page.goto(`${server.url}/`);
  // Links to what must not be loaded ahead: the thank-you page, a feed, a Markdown file.
  await page.evaluate(() => {
    for (const href of ["/contact/sent", "/blog/rss.xml", "/llms.txt"]) {
      const a = document.createElement("a");
      a.href = href;
      a.textContent = href;
      a.id = `x${href.replace(/\W/g, "-")}`;
      document.body.prepend(a);
    }
  });
  // "moderate": a link hovered for 200 ms, or pressed.
  for (const id of ["#x-contact-sent", "#x-blog-rss-xml", "#x-llms-txt"]) {
    await page.locator(id).hover();
    await page.waitForTimeout(500);
  }
  await page.getByRole("navigation").first().getByRole("link", { name: "Services" }).hover();
  await expect
    .poll(
      () => requests().some((r) => r.path === "/services" && r.purpose === "prefetch;prerender"),
      {
        timeout: 10_000,
      },
    )
    .toBe(true);
  const early = requests().filter((r) => r.purpose);
  expect(early.map((r) => r.path)).not.toContain("/contact/sent");
  expect(early.map((r) => r.path)).not.toContain("/blog/rss.xml");
  expect(early.map((r) => r.path)).not.toContain("/llms.txt");
});

test("the rules file loads under the page's own policy, and nothing leaves the origin", async ({
  page,
}) => {
  const foreign: string[] = [];
  const violations: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(server.url)) foreign.push(r.url());
  });
  page.on("console", (m) => {
    if (/Content Security Policy|speculation/i.test(m.text())) violations.push(m.text());
  });
  await page.goto(`${server.url}/blog`);
  await page.getByRole("link", { name: "Contact" }).first().hover();
  await expect
    .poll(
      () => requests().some((r) => r.path === "/contact" && r.purpose === "prefetch;prerender"),
      {
        timeout: 10_000,
      },
    )
    .toBe(true);
  expect(violations).toEqual([]);
  expect(foreign).toEqual([]);
});

for (const reducedMotion of ["no-preference", "reduce"] as const) {
  test(`a click to another page ${reducedMotion === "reduce" ? "has no" : "has a"} view transition (prefers-reduced-motion: ${reducedMotion})`, async ({
    browser,
  }) => {
    const context = await browser.newContext({ reducedMotion });
    const page = await context.newPage();
    // What the incoming page saw: whether the browser animated the navigation into it.
    await page.addInitScript(() => {
      window.addEventListener("pagereveal", (e) => {
        (window as unknown as { revealed: boolean | null }).revealed = Boolean(
          (e as Event & { viewTransition?: unknown }).viewTransition,
        );
      });
    });
    await page.goto(`${server.url}/`);
    await page.getByRole("navigation").first().getByRole("link", { name: "Services" }).click();
    await expect(page).toHaveURL(/\/services$/);
    await expect
      .poll(() =>
        page.evaluate(() => (window as unknown as { revealed?: boolean | null }).revealed),
      )
      .toBe(reducedMotion !== "reduce");
    await context.close();
  });
}
