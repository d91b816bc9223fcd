import { readFileSync } from "node:fs";
import { BOOK_PATH } from "../app/contact/booking.ts";
import type { RouteFigures } from "./bench-site.ts";

/**
 * The performance budgets, checked against bench/site.json (written by `npm run bench:site`).
 * A failing budget names the route and the figure; the exit code is 1 if any fails.
 */

/** Each budget a route misses, as `route: figure (budget)`. */
export function budgetFailures(routes: RouteFigures[]): string[] {
  const failures: string[] = [];
  const check = (ok: boolean, route: string, what: string) => {
    if (!ok) failures.push(`${route}: ${what}`);
  };
  for (const r of routes) {
    for (const [name, score] of [
      ["performance", r.performance],
      ["accessibility", r.accessibility],
      ["best practices", r.bestPractices],
      ["SEO", r.seo],
    ] as const) {
      // The booking page is a visitor's own (noindex by design): Lighthouse's SEO score counts that against it.
      if (name === "SEO" && r.path === BOOK_PATH) continue;
      check(score === 100, r.path, `Lighthouse ${name} ${score} (budget 100)`);
    }
    check(r.cls === 0, r.path, `CLS ${r.cls} (budget 0)`);
    check(
      r.thirdPartyRequests.length === 0,
      r.path,
      `requests to other origins: ${r.thirdPartyRequests.join(", ")}`,
    );
    const js = r.bytesByType.script ?? 0;
    if (r.kind === "content") {
      check(r.lcpMs <= 1200, r.path, `LCP ${r.lcpMs} ms (budget 1,200 ms)`);
      check(js === 0, r.path, `${js} bytes of JavaScript (budget 0)`);
    } else {
      check(
        js <= 120 * 1024,
        r.path,
        `JavaScript ${(js / 1024).toFixed(1)} KB transferred (budget 120 KB)`,
      );
    }
    if (r.path === "/") {
      check(
        r.transferredBytes <= 60 * 1024,
        r.path,
        `${(r.transferredBytes / 1024).toFixed(1)} KB transferred (budget 60 KB)`,
      );
    }
    // An article, its hero a photo or a drawing, on a 390 px phone.
    if (r.path.startsWith("/blog/")) {
      check(
        r.transferredBytes <= 120 * 1024,
        r.path,
        `${(r.transferredBytes / 1024).toFixed(1)} KB transferred (budget 120 KB)`,
      );
    }
  }
  return failures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { routes } = JSON.parse(readFileSync("bench/site.json", "utf8")) as {
    routes: RouteFigures[];
  };
  const failures = budgetFailures(routes);
  if (failures.length > 0) {
    console.error(`Budgets failed (${failures.length}):\n  ${failures.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`All budgets met on ${routes.length} routes.`);
}
