import { expect, test } from "@playwright/test";

/** Addresses that are not pages: the designed 404s, for people and for assistive technology. */

test("an unknown article answers 404 with Post Not Found", async ({ page }) => {
  const response = await page.goto("/blog/no-such-post");
  expect(response?.status()).toBe(404);
  await expect(page.locator("h1")).toHaveText("Post Not Found");
  await page.getByRole("link", { name: "Return to Blog" }).click();
  await expect(page).toHaveURL(/\/blog$/);
});

for (const path of [
  "/no-such-page",
  "/services/extra",
  "/assets/missing.js",
  "/%E0%A4%A",
  "/blog/a/b",
]) {
  test(`${path} answers 404 with a designed page`, async ({ page }) => {
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(page.locator("h1")).toHaveText("Page not found");
    await expect(page.getByRole("link", { name: "Go to the home page" })).toHaveAttribute(
      "href",
      "/",
    );
    const main = page.getByRole("main");
    for (const href of ["/services", "/blog", "/contact"])
      await expect(main.locator(`a[href="${href}"]`)).toHaveCount(1);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
    await expect(page.locator('script:not([type="application/ld+json"])')).toHaveCount(0);
  });
}

const notFoundPages = [
  { path: "/no-such-page", title: "Page not found | Teton Digital" },
  { path: "/blog/no-such-post", title: "Post Not Found | Teton Digital" },
];

test("the not-found pages have their own titles", async ({ page }) => {
  for (const nf of notFoundPages) {
    const res = await page.goto(nf.path);
    expect(res?.status()).toBe(404);
    await expect(page).toHaveTitle(nf.title);
  }
});
