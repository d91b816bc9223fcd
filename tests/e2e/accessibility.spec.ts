import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { allRoutes } from "./routes";

/** WCAG 2.2 AA by axe-core, in both colour schemes, on every page and on the designed 404s. */

const WCAG_22_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];
const paths = [...allRoutes.map((r) => r.path), "/no-such-page", "/blog/no-such-post"];

for (const path of paths) {
  for (const colorScheme of ["light", "dark"] as const) {
    test(`${path} has no WCAG 2.2 AA violation (${colorScheme})`, async ({ page }) => {
      await page.emulateMedia({ colorScheme });
      await page.goto(path);
      const results = await new AxeBuilder({ page }).withTags(WCAG_22_AA).analyze();
      const summary = results.violations.map(
        (v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
      );
      expect(summary).toEqual([]);
    });
  }
}
