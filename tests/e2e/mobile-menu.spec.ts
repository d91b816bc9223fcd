import { expect, type Page, test } from "@playwright/test";

test.use({ viewport: { width: 375, height: 740 } });

/**
 * The state a screen reader announces for the menu button. Chromium derives aria-expanded from
 * popovertarget in its accessibility tree (there is no DOM attribute), so ask the tree over CDP.
 */
async function announcedExpanded(page: Page): Promise<boolean | undefined> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send("Accessibility.getFullAXTree");
    const button = nodes.find((n) => n.role?.value === "button" && n.name?.value === "Menu");
    return button?.properties?.find((p) => p.name === "expanded")?.value.value as
      | boolean
      | undefined;
  } finally {
    await cdp.detach();
  }
}

async function openAndFollow(page: Page, from: string, linkName: string, expectedPath: RegExp) {
  await page.goto(from);
  const toggle = page.getByRole("button", { name: "Menu", exact: true });
  const menu = page.locator("#mobile-menu");
  await expect(toggle).toBeVisible();
  await expect(menu).toBeHidden();
  // Desktop links are hidden on a phone.
  await expect(page.locator("nav ul").first()).toBeHidden();

  await toggle.click();
  await expect(menu).toBeVisible();
  expect(await announcedExpanded(page)).toBe(true);
  for (const name of ["Home", "Services", "Blog", "Contact", "Get Started"]) {
    await expect(menu.getByRole("link", { name, exact: true })).toBeVisible();
  }

  // The close button and Escape both close it.
  await menu.getByRole("button", { name: "Close menu" }).click();
  await expect(menu).toBeHidden();
  expect(await announcedExpanded(page)).toBe(false);
  await toggle.click();
  await expect(menu).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(menu).toBeHidden();

  // A link in the menu opens its page. (Links are plain <a>: the new page is a fresh document, so
  // there is no "menu left open" to test after it.)
  await toggle.click();
  await menu.getByRole("link", { name: linkName, exact: true }).click();
  await expect(page).toHaveURL(expectedPath);
}

test.describe("mobile menu with JavaScript on", () => {
  test("on a static page", async ({ page }) => {
    await openAndFollow(page, "/", "Blog", /\/blog$/);
  });
  test("on the contact page, which runs its form script", async ({ page }) => {
    await openAndFollow(page, "/contact", "Services", /\/services$/);
  });
});

test.describe("mobile menu with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });
  test("on a static page", async ({ page }) => {
    await openAndFollow(page, "/services", "Contact", /\/contact$/);
  });
  test("on the contact page", async ({ page }) => {
    await openAndFollow(page, "/contact", "Home", /\/$/);
  });
});

test.describe("the mobile menu", () => {
  test.use({ viewport: { width: 375, height: 740 }, javaScriptEnabled: false });
  test("shows the logo mark, links the name home, and dims the page behind it", async ({
    page,
  }) => {
    await page.goto("/services");
    await page.getByRole("button", { name: "Menu", exact: true }).click();
    const menu = page.locator("#mobile-menu");
    await expect(menu).toBeVisible();
    const home = menu.getByRole("link", { name: "Teton Digital" });
    await expect(home).toHaveAttribute("href", "/");
    await expect(home.locator("svg")).toBeVisible();
    const backdrop = await menu.evaluate((m) => getComputedStyle(m, "::backdrop").backgroundColor);
    expect(backdrop).not.toBe("rgba(0, 0, 0, 0)");
    await home.click();
    await expect(page).toHaveURL(/\/$/);
  });
});
