import { expect, type Page, test } from "@playwright/test";
import { allRoutes } from "./routes";

/** What a visitor sees of the layout: line length, the hero, the blog cards, forms and print. */

/** Characters on each rendered line of the first few paragraphs (Range.getClientRects per line). */
async function charactersPerLine(page: Page, selector: string): Promise<number[]> {
  return page.locator(selector).evaluateAll((paragraphs) => {
    const counts: number[] = [];
    for (const p of paragraphs) {
      const text = p.textContent ?? "";
      const walker = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
      const tops = new Map<number, number>();
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const value = node.nodeValue ?? "";
        for (let i = 0; i < value.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getClientRects()[0];
          if (!rect) continue;
          const top = Math.round(rect.top);
          tops.set(top, (tops.get(top) ?? 0) + 1);
        }
      }
      // Full lines only: every line but a paragraph's last.
      const lines = [...tops.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n);
      if (text.length > 200) counts.push(...lines.slice(0, -1));
    }
    return counts;
  });
}

for (const width of [1440, 768, 375]) {
  test(`articles and the imprint read at 45–75 characters a line at ${width} px`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    for (const [path, selector] of [
      ["/blog/rent-or-buy-it-infrastructure", ".prose-article > p"],
      ["/imprint", "main section p"],
    ] as const) {
      await page.goto(path);
      const counts = await charactersPerLine(page, selector);
      expect(counts.length, path).toBeGreaterThan(3);
      const max = Math.max(...counts);
      // Phones are narrower than a column: there the limit is the screen, not the measure.
      if (width >= 768)
        expect(max, `${path} at ${width}px: ${counts.join(",")}`).toBeLessThanOrEqual(75);
      if (width >= 768) expect(max, `${path} at ${width}px`).toBeGreaterThanOrEqual(55);
    }
    if (width >= 768) {
      // The title, the hero image and the author box line up with the text.
      await page.goto("/blog/rent-or-buy-it-infrastructure");
      const left = async (sel: string) => (await page.locator(sel).first().boundingBox())?.x ?? -1;
      const body = await left(".prose-article");
      expect(Math.abs((await left("main h1")) - body)).toBeLessThan(2);
      expect(Math.abs((await left("main header img")) - body)).toBeLessThan(2);
      expect(Math.abs((await left('aside[aria-label="About the author"]')) - body)).toBeLessThan(2);
    }
  });
}

test("the home hero has its illustration beside the text on a wide screen, none on a phone", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/");
  const art = page
    .locator("main section")
    .first()
    .locator("svg[aria-hidden=true][viewBox='0 0 440 400']");
  await expect(art).toBeVisible();
  const box = await art.boundingBox();
  const h1 = await page.locator("h1").boundingBox();
  expect(box && h1 && box.x > h1.x + h1.width - 1).toBe(true);
  expect(box?.width).toBeGreaterThan(300);
  // Right in dark mode: the tiles follow the theme.
  await page.emulateMedia({ colorScheme: "dark" });
  const tileFill = await art
    .locator("rect")
    .first()
    .evaluate((r) => getComputedStyle(r).fill);
  expect(tileFill).not.toBe("rgb(255, 255, 255)");
  await page.setViewportSize({ width: 375, height: 740 });
  await expect(art).toBeHidden();
});

test("every blog card is one link: one tab stop, a focus ring, and the image leads to the article", async ({
  page,
}) => {
  await page.goto("/blog");
  const cards = page.locator("main article");
  const count = await cards.count();
  expect(count).toBe(4);
  for (let i = 0; i < count; i++) {
    const links = cards.nth(i).locator("a[href]");
    await expect(links).toHaveCount(1);
    await expect(links.first()).toHaveAttribute("href", /^\/blog\/[a-z0-9-]+$/);
  }
  // Tab from the page heading: each card is reached once, and shows a focus ring.
  await page.locator("h1").click();
  const seen: string[] = [];
  for (let i = 0; i < 20 && seen.length < count; i++) {
    await page.keyboard.press("Tab");
    const href = await page.evaluate(() =>
      document.activeElement?.closest("main article a")?.getAttribute("href"),
    );
    if (href) {
      seen.push(href);
      const outline = await page.evaluate(
        () => getComputedStyle(document.activeElement?.closest("article") as Element).outlineStyle,
      );
      expect(outline).toBe("solid");
    }
  }
  expect(new Set(seen).size).toBe(count);
  expect(seen.length).toBe(count);
  // A click on the image (not the title) opens the article.
  await cards.nth(1).locator("img").scrollIntoViewIfNeeded();
  const img = await cards.nth(1).locator("img").boundingBox();
  await page.mouse.click(
    (img?.x ?? 0) + (img?.width ?? 0) / 2,
    (img?.y ?? 0) + (img?.height ?? 0) / 2,
  );
  await expect(page).toHaveURL(/\/blog\/startup-ai-scaling-success$/);
});

test("the featured image keeps its whole picture (not cropped)", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/blog");
  const img = page.locator("main article").first().locator("img");
  const ratio = await img.evaluate((el: HTMLImageElement) => el.clientWidth / el.clientHeight);
  expect(Math.abs(ratio - 1200 / 630)).toBeLessThan(0.02);
});

test("the service select is as tall as the inputs", async ({ page }) => {
  await page.goto("/contact");
  const height = async (label: string) => (await page.getByLabel(label).boundingBox())?.height ?? 0;
  expect(Math.abs((await height("Service Interest")) - (await height("Company")))).toBeLessThan(1);
});

test("print: articles and the imprint print as documents", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark", media: "print" });
  for (const path of ["/blog/ai-infrastructure-us-goldmine", "/imprint"]) {
    await page.goto(path);
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    await expect(page.locator("body > div footer, footer").first()).toBeHidden();
    const colours = await page.evaluate(() => {
      const h1 = document.querySelector("h1") as Element;
      return {
        body: getComputedStyle(document.body).backgroundColor,
        header: getComputedStyle(h1.closest("header, section, div") as Element).backgroundColor,
        text: getComputedStyle(h1).color,
      };
    });
    expect(colours.body).toBe("rgba(0, 0, 0, 0)");
    expect(colours.header).toBe("rgba(0, 0, 0, 0)");
    expect(colours.text).toBe("rgb(0, 0, 0)");
  }
  // The imprint's links (email, phone) print their targets after their text.
  const link = page.locator("[data-print-links] a[href]").first();
  const after = await link.evaluate((a) => getComputedStyle(a, "::after").content);
  expect(after).toContain(await link.getAttribute("href"));
  await page.goto("/blog/ai-infrastructure-us-goldmine");
  await expect(
    page.getByRole("heading", { name: /Have a project like this in mind/ }),
  ).toBeHidden();
  const back = page.locator('a:has-text("Back to Blog")');
  await expect(back).toHaveCount(2);
  for (const link of await back.all()) await expect(link).toBeHidden();
});

test("no page scrolls sideways on a 390 px phone (a long inline code span wraps)", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const route of allRoutes) {
    await page.goto(route.path);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, route.path).toBeLessThanOrEqual(390);
  }
});
