import { execSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { brotliCompressSync, gzipSync } from "node:zlib";
import * as chromeLauncher from "chrome-launcher";
import express from "express";
import lighthouse from "lighthouse";
import { type Browser, chromium } from "playwright-core";
import { BOOK_PATH } from "../app/contact/booking.ts";
import { publishedSlugs } from "../app/content/post-files.ts";
import { pageOf, pagePaths } from "../app/pages.ts";
import { chromiumArgs } from "../playwright.config.ts";
import type { StaticFile } from "../server/static.ts";
import { sendAsPage } from "../tests/support/requests.ts";
import { startServer } from "../tests/support/server.ts";
import { editSection } from "./bench-edit-section.ts";
import { budgetFailures } from "./check-budgets.ts";
import { spamSection } from "./spam-section.ts";

/**
 * What every page costs and scores, on the production build:
 *   npm run bench:site [-- --runs 3 --no-build] [-- --route /blog/some-post]
 * `--route` (repeatable) measures only those routes of this site and checks their budgets: no
 * baseline, nothing written.
 * The booking page, server-rendered behind a visitor's signed link, is measured too (last): with the
 * link a message sent to this server answers with, its time zone given as a visitor's first load
 * with JavaScript leaves it (without JavaScript, the office's zone: the same page); the baseline has
 * no such page.
 * For each route: Lighthouse (mobile, default simulated throttling, Debian Chromium) `runs` times,
 * the median of each figure; then one load in Chromium counting requests and transferred bytes by
 * type, and any request to another origin. Prints one table and writes bench/site.json, which
 * scripts/check-budgets.ts checks.
 *
 * Then the same for a baseline: the same routes built as a client-rendered single-page app
 * (React Router's SPA mode, configured in bench/spa-baseline/), served precompressed like ours with
 * every path falling back to index.html. Both tables go to BENCHMARKS.md.
 * `--no-baseline` (CI, before check:budgets) writes bench/site.json alone: half the Lighthouse runs.
 */

const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    "no-build": { type: "boolean", default: false },
    "no-baseline": { type: "boolean", default: false },
    route: { type: "string", multiple: true },
  },
});
const RUNS = Number(opts.runs);
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The public pages of app/pages.ts (each published post), the interactive ones last. */
const publicPaths = pagePaths(publishedSlugs(), (p) => p.public);
const kindOf = (path: string) =>
  pageOf(path)?.interactive ? ("interactive" as const) : ("content" as const);
const ROUTES = [
  ...publicPaths.filter((p) => kindOf(p) === "content"),
  ...publicPaths.filter((p) => kindOf(p) === "interactive"),
]
  .map((path) => ({ path, kind: kindOf(path) }))
  .concat({ path: BOOK_PATH, kind: "content" })
  .filter(({ path }) => !opts.route || opts.route.includes(path));

export type RouteFigures = {
  path: string;
  kind: "content" | "interactive";
  performance: number;
  accessibility: number;
  bestPractices: number;
  seo: number;
  lcpMs: number;
  fcpMs: number;
  cls: number;
  tbtMs: number;
  requests: number;
  transferredBytes: number;
  bytesByType: Record<string, number>;
  thirdPartyRequests: string[];
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

type Scores = Pick<
  RouteFigures,
  "performance" | "accessibility" | "bestPractices" | "seo" | "lcpMs" | "fcpMs" | "cls" | "tbtMs"
>;

/** A run that failed to measure (no score; NO_NAVSTART comes about one run in ten on a busy machine) is not a score of 0: it is run again, up to this many failures a route. */
const FAILED_RUNS_ALLOWED = 10;

async function lighthouseRuns(url: string, port: number): Promise<Scores> {
  const runs: Scores[] = [];
  let failed = 0;
  while (runs.length < RUNS) {
    const result = await lighthouse(url, { port, output: "json", logLevel: "error" });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { categories: c, audits: a, runtimeError } = result.lhr;
    const unscored = ["performance", "accessibility", "best-practices", "seo"].filter(
      (k) => typeof c[k]?.score !== "number",
    );
    if (runtimeError || unscored.length > 0) {
      failed++;
      const why = runtimeError
        ? `${runtimeError.code}: ${runtimeError.message}`
        : `no score for ${unscored.join(", ")}`;
      console.error(
        `Lighthouse could not measure ${url} (${why}); run again (${failed} of ${FAILED_RUNS_ALLOWED})`,
      );
      if (failed >= FAILED_RUNS_ALLOWED)
        throw new Error(`Lighthouse failed ${failed} times on ${url}: ${why}`);
      continue;
    }
    runs.push({
      performance: Math.round((c.performance?.score ?? 0) * 100),
      accessibility: Math.round((c.accessibility?.score ?? 0) * 100),
      bestPractices: Math.round((c["best-practices"]?.score ?? 0) * 100),
      seo: Math.round((c.seo?.score ?? 0) * 100),
      lcpMs: Math.round(a["largest-contentful-paint"]?.numericValue ?? 0),
      fcpMs: Math.round(a["first-contentful-paint"]?.numericValue ?? 0),
      cls: Number((a["cumulative-layout-shift"]?.numericValue ?? 0).toFixed(3)),
      tbtMs: Math.round(a["total-blocking-time"]?.numericValue ?? 0),
    });
  }
  const pick = (k: keyof Scores) => median(runs.map((r) => r[k]));
  return {
    performance: pick("performance"),
    accessibility: pick("accessibility"),
    bestPractices: pick("bestPractices"),
    seo: pick("seo"),
    lcpMs: pick("lcpMs"),
    fcpMs: pick("fcpMs"),
    cls: pick("cls"),
    tbtMs: pick("tbtMs"),
  };
}

/** One cold load in a fresh context (its own empty cache): requests and bytes on the wire (encoded, as transferred), by type. */
async function transfers(browser: Browser, url: string) {
  // A 390 px phone, as the budgets say.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    const types = new Map<string, string>();
    const urls = new Map<string, string>();
    const bytesByType: Record<string, number> = {};
    let requests = 0;
    cdp.on("Network.requestWillBeSent", (e) => {
      urls.set(e.requestId, e.request.url);
    });
    cdp.on("Network.responseReceived", (e) => {
      types.set(e.requestId, e.type.toLowerCase());
    });
    cdp.on("Network.loadingFinished", (e) => {
      requests += 1;
      const type = types.get(e.requestId) ?? "other";
      bytesByType[type] = (bytesByType[type] ?? 0) + e.encodedDataLength;
    });
    await page.goto(url, { waitUntil: "networkidle" });
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForLoadState("networkidle");
    const origin = new URL(url).origin;
    const thirdPartyRequests = [...urls.values()].filter(
      (u) => !u.startsWith("data:") && new URL(u).origin !== origin,
    );
    const transferredBytes = Object.values(bytesByType).reduce((a, b) => a + b, 0);
    return { requests, transferredBytes, bytesByType, thirdPartyRequests };
  } finally {
    await context.close();
  }
}

/** A visitor's own booking link (a path with its `?t=`), as the answer to their message gives it. */
async function bookingLink(baseUrl: string): Promise<string> {
  const res = await sendAsPage(baseUrl, {
    name: "Bench Visitor",
    email: "bench@example.org",
    message: "Measuring the booking page.",
  });
  const { booking } = (await res.json()) as { booking?: string };
  if (!booking)
    throw new Error(`no booking link in the contact endpoint's answer (HTTP ${res.status})`);
  return `${booking}&tz=${encodeURIComponent(Intl.DateTimeFormat().resolvedOptions().timeZone)}`;
}

async function benchSite(
  baseUrl: string,
  routes = ROUTES,
  links: Record<string, string> = {},
): Promise<RouteFigures[]> {
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    chromeFlags: ["--headless=new", ...chromiumArgs],
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumArgs });
  const rows: RouteFigures[] = [];
  try {
    for (const route of routes) {
      const url = `${baseUrl}${links[route.path] ?? route.path}`;
      rows.push({
        path: route.path,
        kind: route.kind,
        ...(await lighthouseRuns(url, chrome.port)),
        ...(await transfers(browser, url)),
      });
    }
  } finally {
    await browser.close();
    await chrome.kill();
  }
  return rows;
}

function printTable(title: string, rows: RouteFigures[]) {
  console.log(`\n${title}`);
  console.table(
    rows.map((r) => ({
      route: r.path,
      perf: r.performance,
      a11y: r.accessibility,
      "best pr.": r.bestPractices,
      seo: r.seo,
      "LCP ms": r.lcpMs,
      CLS: r.cls,
      "TBT ms": r.tbtMs,
      requests: r.requests,
      "KB total": Number((r.transferredBytes / 1024).toFixed(1)),
      "KB JS": Number(((r.bytesByType.script ?? 0) / 1024).toFixed(1)),
      "3rd-party": r.thirdPartyRequests.length,
    })),
  );
}

/** The SPA baseline's files, compressed like ours, every unknown path answered with index.html. */
async function serveSpa(dir: string) {
  const { loadStaticFiles, serveStatic } = await import("../server/static.ts");
  // Its build has no scheduled states: the files are one Map.
  const files = loadStaticFiles(dir, null) as Map<string, StaticFile>;
  for (const f of files.values()) {
    if (f.body.length > 512 && /text|javascript|json|svg|xml/.test(f.type)) {
      f.br = brotliCompressSync(f.body);
      f.gzip = gzipSync(f.body, { level: 9 });
    }
  }
  const app = express();
  const serve = serveStatic(files);
  app.use(serve);
  app.use((req, res) => {
    req.url = "/index.html";
    serve(req, res, () => res.status(404).end());
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

const kb = (n: number) => (n / 1024).toFixed(1);

function markdownTable(rows: RouteFigures[]): string {
  const head =
    "| route | perf | a11y | best practices | SEO | LCP ms | CLS | TBT ms | requests | KB transferred | KB JavaScript |";
  const line = "|---|---|---|---|---|---|---|---|---|---|---|";
  const body = rows.map(
    (r) =>
      `| ${r.path} | ${r.performance} | ${r.accessibility} | ${r.bestPractices} | ${r.seo} | ${r.lcpMs} | ${r.cls} | ${r.tbtMs} | ${r.requests} | ${kb(r.transferredBytes)} | ${kb(r.bytesByType.script ?? 0)} |`,
  );
  return [head, line, ...body].join("\n");
}

/** The measured alternatives ADR 0009 did not take (bench/contact-alternatives.json, written by hand from bench:contact runs). */
function alternativesTable(): string {
  const file = "bench/contact-alternatives.json";
  if (!existsSync(file)) return "";
  const { note, rows } = JSON.parse(readFileSync(file, "utf8")) as {
    note: string;
    rows: { engine: string; variant: string; perSecond: string; target: number; taken: string }[];
  };
  return `
${note}

| engine | variant | steady req/s (target) | taken |
|---|---|---|---|
${rows.map((r) => `| ${r.engine} | ${r.variant} | ${r.perSecond} (≥ ${r.target}) | ${r.taken} |`).join("\n")}
`;
}

/** What a restart costs (bench/start.json from bench:start; bench/start-before.json, by hand, the figures before issue 38). */
function startSection(): string {
  if (!existsSync("bench/start.json")) return "";
  type Start = {
    date: string;
    figures: Record<string, number | null>;
    target?: Record<string, number>;
  };
  const now = JSON.parse(readFileSync("bench/start.json", "utf8")) as Start;
  const before = existsSync("bench/start-before.json")
    ? (JSON.parse(readFileSync("bench/start-before.json", "utf8")) as Start & { note: string })
    : null;
  const t = now.target ?? {};
  const row = (label: string, r: Start) =>
    `| ${label} | ${r.date} | ${r.figures.coldStartMs} (≤ ${t.coldStartMs}) | ${r.figures.idleMb} (≤ ${t.idleMb}) | ${r.figures.peakMb} (≤ ${t.peakMb}) | ${r.figures.lost} | ${r.figures.limitMb ?? "none"} |`;
  return `
## A restart (\`npm run bench:start\`)

The server as \`npm start\` runs it (\`node server.js\`, NODE_ENV unset), on SQLite, on this 2-core machine
shared with other work: cold start from spawn to the first 200 on \`/\` (median of 5, Node's compile cache
warm); resident memory idle, and its peak (VmHWM) after 10 s of 200 submissions a second from many
addresses with 32 connections loading \`/\`; acknowledged submissions not stored. The server runs in a
memory cgroup of the size given (a small container's).

| | date | cold start ms | idle RSS MB | peak RSS MB | lost | memory limit MB |
|---|---|---|---|---|---|---|
${before ? `${row("before", before)}\n` : ""}${row("now", now)}
${before ? `\n${before.note}.\n` : ""}`;
}

function writeBenchmarks(site: RouteFigures[], spa: RouteFigures[]) {
  const serve = existsSync("bench/serve.json")
    ? JSON.parse(readFileSync("bench/serve.json", "utf8"))
    : null;
  const contact = ["sqlite", "postgres"]
    .map((e) => `bench/contact-${e}.json`)
    .filter((f) => existsSync(f))
    .map((f) => JSON.parse(readFileSync(f, "utf8")));
  const contactSection =
    contact.length === 0
      ? ""
      : `
## The contact pipeline (\`npm run bench:contact\`, \`-- --pg\`)

Against the production server on this 2-core machine, with autocannon: submissions acknowledged per
second and their p99 in the steady run (stored before the answer: idempotency key, rate limits,
inquiry and deliveries in one transaction); what the SIGKILL and relay-down runs lost; and \`/\` at 32
connections while 200 submissions a second arrive from many addresses
(docs/decisions/0009-one-path-for-every-inquiry.md).

| engine | date | submissions × concurrency | steady req/s | p99 ms | lost (all runs) | \`/\` p99 ms under the flood |
|---|---|---|---|---|---|---|
${contact
  .map(
    (c) =>
      `| ${c.engine} | ${c.date} | ${c.n} × ${c.concurrency} | ${c.figures.perSecond} (≥ ${c.target.perSecond}) | ${c.figures.p99Ms} (≤ ${c.target.p99Ms}) | ${c.figures.lost} | ${c.figures.pageP99Ms} (≤ ${c.target.pageP99Ms}) |`,
  )
  .join("\n")}
${alternativesTable()}`;
  const text = `# Benchmarks

Written by \`npm run bench:site\` on ${new Date().toISOString().slice(0, 10)}: Lighthouse ${RUNS}× per route (median),
mobile with default simulated throttling, Debian Chromium; transfers from one cold load in Chromium.
Same machine (2 cores), same script, same run for both tables.

## This site: prerendered, no JavaScript where nothing is interactive

${markdownTable(site)}

## Baseline: the same routes as a client-rendered single-page app

React Router's SPA mode (\`bench/spa-baseline/\`): one \`index.html\` shell, every route rendered with React in the
browser, as the site the spec came from was. Served precompressed, like ours.

${markdownTable(spa)}

## What prerendering and zero-JavaScript pages buy

| | this site | baseline |
|---|---|---|
| median Lighthouse performance | ${median(site.map((r) => r.performance))} | ${median(spa.map((r) => r.performance))} |
| median LCP | ${median(site.map((r) => r.lcpMs))} ms | ${median(spa.map((r) => r.lcpMs))} ms |
| home page transferred | ${kb(site[0]?.transferredBytes ?? 0)} KB | ${kb(spa[0]?.transferredBytes ?? 0)} KB |
| JavaScript on a content page | ${kb(site[0]?.bytesByType.script ?? 0)} KB | ${kb(spa[0]?.bytesByType.script ?? 0)} KB |
${
  serve
    ? `
## Serving throughput (\`npm run bench:serve\`, ${serve.measuredAt.slice(0, 10)})

${serve.description}

| path | Node req/s | Node p99 ms | nginx req/s | nginx p99 ms | Node / nginx |
|---|---|---|---|---|---|
${serve.rows.map((r: Record<string, number | string>) => `| ${r.path} | ${r["node req/s"]} | ${r["node p99 ms"]} | ${r["nginx req/s"]} | ${r["nginx p99 ms"]} | ${r["node / nginx"]} |`).join("\n")}
`
    : ""
}`;
  writeFileSync(
    "BENCHMARKS.md",
    text + contactSection + startSection() + editSection() + spamSection(),
  );
}

async function main() {
  if (!opts["no-build"]) execSync("npm run build", { stdio: "inherit" });
  if (ROUTES.length === 0) throw new Error(`no such route: ${opts.route?.join(", ")}`);
  // The baseline's own configuration (bench/spa-baseline/): the production configuration knows nothing of it.
  if (!opts.route && !opts["no-baseline"])
    execSync("react-router build --config bench/spa-baseline/vite.config.ts", {
      stdio: "inherit",
      env: { ...process.env, REACT_ROUTER_ROOT: "bench/spa-baseline" },
    });
  const server = await startServer({
    RATE_LIMIT_PER_MINUTE: "1000",
    RATE_LIMIT_NETWORK_PER_MINUTE: "1000",
  });
  let rows: RouteFigures[];
  try {
    const measured = ROUTES.some((r) => r.path === BOOK_PATH);
    rows = await benchSite(
      server.url,
      ROUTES,
      measured ? { [BOOK_PATH]: await bookingLink(server.url) } : {},
    );
  } finally {
    await server.stop();
  }
  printTable(
    `Prerendered site (median of ${RUNS} Lighthouse runs, mobile, simulated throttling)`,
    rows,
  );
  if (opts.route) {
    const failures = budgetFailures(rows);
    console.log(
      failures.length > 0 ? `Budgets failed:\n  ${failures.join("\n  ")}` : "Budgets met.",
    );
    process.exitCode = failures.length > 0 ? 1 : 0;
    return;
  }
  mkdirSync("bench", { recursive: true });
  writeFileSync(
    "bench/site.json",
    `${JSON.stringify({ measuredAt: new Date().toISOString(), lighthouseRuns: RUNS, routes: rows }, null, 2)}\n`,
  );
  if (opts["no-baseline"]) {
    console.log("Wrote bench/site.json (no baseline: BENCHMARKS.md left as it was)");
    return;
  }
  const spa = await serveSpa("build-spa/client");
  let spaRows: RouteFigures[];
  try {
    spaRows = await benchSite(
      spa.url,
      ROUTES.filter((r) => r.path !== BOOK_PATH),
    );
  } finally {
    spa.close();
  }
  printTable("Baseline: the same routes, client-rendered (React Router SPA mode)", spaRows);
  writeBenchmarks(rows, spaRows);
  console.log("Wrote bench/site.json and BENCHMARKS.md");
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
