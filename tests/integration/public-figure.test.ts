import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, describe, expect, inject, it } from "vitest";
import { site } from "../../app/config/site.ts";
import { loadConfig } from "../../server/config.ts";
import { createMetrics } from "../../server/contact/metrics.ts";
import type { Promised } from "../../server/contact/review/promise.ts";
import {
  computeFigure,
  figureHolder,
  figureWords,
} from "../../server/contact/review/public-figure.ts";
import { promiseByService, promiseSection } from "../../server/contact/review/reply-figures.ts";
import { createContactPipeline } from "../../server/contact/runtime.ts";
import { DATABASE_FILE } from "../../server/contact/storage/data-dir.ts";
import type { Database, Sql } from "../../server/contact/storage/database.ts";
import { openPostgres } from "../../server/contact/storage/postgres.ts";
import { openSqlite } from "../../server/contact/storage/sqlite.ts";
import { launchChromium } from "../support/chromium.ts";
import { testKeys } from "../support/keys.ts";
import { createTestDatabase } from "../support/postgres.ts";
import { startServer } from "../support/server.ts";

/**
 * The reply promise's public figure (ADR 0032) from a data set whose answer times are known by
 * construction: every inquiry arrives on a weekday at a given minute after 9:00 at the office, so a
 * same-day answer waited its clock minutes, and one answered the next weekday at 10:00 waited the
 * rest of the first day (it closes at 18:00) and an hour. The test counts the figure from those
 * numbers alone, not through promise.ts; then two instances on one PostgreSQL database compute it
 * once a day between them, through the housekeeping turn, and serve the same words.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const WEEKDAY_CLOSE_H = 18;

/** No holidays: the weekdays below are all open 9–18 (site.ts's hours, America/Denver). */
const facts: Promised = { ...site, holidays: [] };

/** 9:00 at the office on a date: Denver's offset that day, read from the zone itself. */
function nineAt(date: string): number {
  for (const offset of ["-07:00", "-06:00"]) {
    const at = Date.parse(`${date}T09:00:00${offset}`);
    const h = new Intl.DateTimeFormat("en-US", {
      timeZone: site.timeZone,
      hour: "2-digit",
      hourCycle: "h23",
    }).format(at);
    if (h === "09") return at;
  }
  throw new Error(date);
}

/** The weekdays (Monday–Thursday, so the next one is a weekday too) before `until`, newest first. */
function weekdays(until: number, count: number): string[] {
  const out: string[] = [];
  for (let t = until - DAY; out.length < count; t -= DAY) {
    const d = new Date(t);
    if (d.getUTCDay() >= 1 && d.getUTCDay() <= 4) out.push(d.toISOString().slice(0, 10));
  }
  return out;
}

type Known = { receivedAt: number; takenAt: number | null; held: boolean; waitMs: number | null };

/**
 * `count` inquiries of the last 90 days, some more of before: answered the same day after 5–235 min,
 * answered the next day at 10:00, not answered, and held as spam. `now` is a Friday noon.
 */
function dataSet(now: number, count: number): Known[] {
  const days = weekdays(now - 3 * DAY, count);
  return days.map((date, n): Known => {
    const receivedAt = nineAt(date) + (n % 7) * 15 * MIN;
    const kind = n % 10;
    if (kind === 9) return { receivedAt, takenAt: null, held: true, waitMs: null };
    if (kind === 8) return { receivedAt, takenAt: null, held: false, waitMs: null };
    if (kind === 7) {
      const open = nineAt(new Date(Date.parse(date) + DAY).toISOString().slice(0, 10));
      const firstDay = nineAt(date) + (WEEKDAY_CLOSE_H - 9) * HOUR - receivedAt;
      return { receivedAt, takenAt: open + HOUR, held: false, waitMs: firstDay + HOUR };
    }
    const wait = (5 + ((n * 37) % 47) * 5) * MIN;
    return { receivedAt, takenAt: receivedAt + wait, held: false, waitMs: wait };
  });
}

async function store(sql: Sql, rows: Known[]) {
  let n = 0;
  for (const r of rows) {
    n++;
    await sql.query(
      `INSERT INTO inquiries (id, received_at, name, email, message, source, held, taken_at)
       VALUES (?, ?, 'A Person', 'a@example.org', 'Hello', 'api', ?, ?)`,
      [`inq-${n}`, r.receivedAt, r.held, r.takenAt],
    );
  }
}

/** The figure as the test counts it: the 90 days, no held one, unanswered ones past the promise. */
function expected(rows: Known[], now: number) {
  const counted = rows.filter((r) => !r.held && r.receivedAt >= now - 90 * DAY);
  const inTime = counted.filter((r) => r.waitMs !== null && r.waitMs <= 4 * HOUR).length;
  const waits = counted.map((r) => r.waitMs ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  return {
    counted: counted.length,
    inTime,
    median: waits[Math.floor(waits.length / 2)] as number,
    percent: Math.floor((100 * inTime) / counted.length),
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), "public-figure-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// A Friday noon a year ahead: the data set's 140 weekdays reach back past the 90 days.
const friday = (() => {
  const d = new Date(Date.now() + 365 * DAY);
  d.setUTCDate(d.getUTCDate() + ((5 - d.getUTCDay() + 7) % 7));
  return nineAt(d.toISOString().slice(0, 10)) + 3 * HOUR;
})();

describe("the public figure", { timeout: 60_000 }, () => {
  it("is the share answered within the promise and the median wait of a few hundred known inquiries, as the test counts them", async () => {
    const db = openSqlite(join(tempDir(), "inquiries.sqlite"));
    cleanups.push(() => db.close());
    await db.migrate();
    const rows = dataSet(friday, 140).flatMap((r) => [r, { ...r }, { ...r }]);
    await store(db, rows);
    const want = expected(rows, friday);
    expect(want.counted).toBeGreaterThan(100);
    const figure = await computeFigure(db, friday, facts);
    expect(figure).toMatchObject({ counted: want.counted, inTime: want.inTime });
    expect(figure.medianMs).toBe(want.median);
    const minutes = Math.ceil(want.median / MIN);
    expect(figureWords(figure, facts)).toBe(
      `In the last 90 days we answered ${want.percent}% of ${want.counted} inquiries within 4 business hours. Half were answered within ${minutes >= 60 ? `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ""}` : `${minutes} min`} of business time.`,
    );
    // A lead's "Reply by" fixed at receipt is the one counted: moved before its answer, it is late.
    const [late] = await db.query<{ id: string }>(
      "SELECT id FROM inquiries WHERE taken_at IS NOT NULL AND NOT held AND taken_at - received_at < ? AND received_at >= ? LIMIT 1",
      [HOUR, friday - 90 * DAY],
    );
    await db.query(
      "UPDATE inquiries SET reply_due_at = received_at, reply_hours = 4 WHERE id = ?",
      [late?.id],
    );
    expect((await computeFigure(db, friday, facts)).inTime).toBe(want.inTime - 1);
    // Below the floor, nothing: the promise alone.
    expect(figureWords({ ...figure, counted: site.response.publicFigure.floor - 1 }, facts)).toBe(
      null,
    );
  });
});

describe("on PostgreSQL with two instances", { timeout: 60_000 }, () => {
  it("is computed once an office day by one of them, and both serve the same words", async () => {
    const pgdb = await createTestDatabase(inject("pgAdminUrl"), "public_figure");
    cleanups.push(pgdb.drop);
    const lines: Array<Record<string, unknown>> = [];
    const log = pino({ level: "info" }, { write: (l: string) => lines.push(JSON.parse(l)) });
    let now = friday;
    const start = async () => {
      const figure = figureHolder();
      const config = loadConfig(
        { DATA_DIR: tempDir(), CONTACT_TO: "inbox@example.com" },
        { SCHEDULE: ["figure"] },
      );
      const db: Database = openPostgres(pgdb.url);
      const made = await createContactPipeline(config, log, {
        keys: testKeys(),
        db,
        clock: () => now,
        facts,
        figure,
      });
      cleanups.push(() => made.close());
      return { ...made, figure };
    };
    const [a, b] = [await start(), await start()];
    const rows = dataSet(friday, 140);
    await store(a.db, rows);
    await Promise.all([a.housekeeping.figure(now), b.housekeeping.figure(now)]);
    const computed = () => lines.filter((l) => l.msg === "reply promise: public figure computed");
    expect(computed()).toHaveLength(1);
    const want = expected(rows, friday);
    expect(a.figure.html()).toContain(`we answered ${want.percent}% of ${want.counted} inquiries`);
    expect(b.figure.html()).toBe(a.figure.html());
    expect(a.figure.html()).toContain('<a href="/privacy#how-we-count-replies">How we count</a>');
    // Later that day, nothing new; the next office day, once again.
    now = friday + 5 * HOUR;
    await Promise.all([a.housekeeping.figure(now), b.housekeeping.figure(now)]);
    expect(computed()).toHaveLength(1);
    now = friday + 13 * HOUR;
    await Promise.all([a.housekeeping.figure(now), b.housekeeping.figure(now)]);
    expect(computed()).toHaveLength(2);
    expect(b.figure.html()).toBe(a.figure.html());
  });
});

describe("the contact page", { timeout: 120_000 }, () => {
  it("says the figure beside the promise with JavaScript off, from the server's stored figure; below the floor, the promise alone", async () => {
    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    const now = Date.now();
    for (const [count, shown] of [
      [140, true],
      [20, false],
    ] as const) {
      const dir = tempDir();
      const db = openSqlite(join(dir, DATABASE_FILE));
      await db.migrate();
      // The server's own clock and calendar: inquiries of the last weeks, as dataSet makes them.
      const rows = dataSet(now, count);
      await store(db, rows);
      await db.close();
      const server = await startServer({ DATA_DIR: dir }, undefined, { SCHEDULE: ["figure"] });
      cleanups.push(() => server.stop());
      await expect
        .poll(() => server.output().includes("reply promise: public figure computed"), {
          timeout: 30_000,
        })
        .toBe(true);
      const page = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
      // Housekeeping reads the stored figure in the turn that computed it: the next page has it.
      await expect
        .poll(
          async () => {
            await page.goto(`${server.url}/contact`);
            return page.getByText(site.response.infoLine).textContent();
          },
          { timeout: 10_000 },
        )
        .toMatch(shown ? /we answered \d+% of \d+ inquiries within 4 business hours/ : /./);
      const line = (await page.getByText(site.response.infoLine).textContent()) ?? "";
      if (shown) {
        const counted = rows.filter((r) => !r.held && r.receivedAt >= now - 90 * DAY).length;
        expect(line).toContain(`of ${counted} inquiries`);
        await page.getByRole("link", { name: "How we count" }).click();
        expect(page.url()).toMatch(/\/privacy#how-we-count-replies$/);
        await expect
          .poll(() => page.getByRole("heading", { name: "How We Count Our Replies" }).count())
          .toBe(1);
      } else {
        expect(line.trim()).toBe(site.response.infoLine);
        expect(await page.locator("[data-reply-figure]").count()).toBe(0);
      }
    }
  });
});

describe("the promise by service line", { timeout: 60_000 }, () => {
  it("is in the digest and /metrics over 7 and 90 days: taken in time, at risk, missed, the median; no sample where there is none", async () => {
    const db = openSqlite(join(tempDir(), "inquiries.sqlite"));
    cleanups.push(() => db.close());
    await db.migrate();
    const day = (t: number) => new Date(t).toISOString().slice(0, 10);
    const wednesday = nineAt(day(friday - 2 * DAY));
    const monthAgo = nineAt(day(friday - 30 * DAY));
    const rows: Array<[string, number, number | null, boolean]> = [
      ["AI Consulting", wednesday, wednesday + 30 * MIN, false], // in time
      ["AI Consulting", wednesday, wednesday + 3.5 * HOUR, false], // in time, at risk at 12:00
      ["Cloud", wednesday, null, false], // at risk, missed
      ["", monthAgo, nineAt(day(monthAgo + DAY)) + HOUR, false], // 10 h: at risk, missed
      ["Cloud", wednesday, null, true], // held: not a lead
    ];
    for (const [n, [service, r, t, held]] of rows.entries())
      await db.query(
        `INSERT INTO inquiries (id, received_at, name, email, message, source, held, taken_at, service)
         VALUES (?, ?, 'A Person', 'a@example.org', 'Hello', 'api', ?, ?, ?)`,
        [`p-${n}`, r, held, t, service],
      );
    expect(await promiseSection(db, friday, facts)).toEqual({
      title:
        'The reply promise (4 business hours), last 7 and 90 days (at risk: nobody took it by 75% of the promise; median: business time to the first "I\'m on it")',
      items: [
        "All leads: 7 days: 3 leads, 2 taken in time, 2 at risk, 1 missed, median 30 min; 90 days: 4 leads, 2 taken in time, 3 at risk, 2 missed, median 3 h 30 min",
        "AI Consulting: 7 days: 2 leads, 2 taken in time, 1 at risk, 0 missed, median 30 min; 90 days: 2 leads, 2 taken in time, 1 at risk, 0 missed, median 30 min",
        "Cloud: 7 days: 1 lead, 0 taken in time, 1 at risk, 1 missed; 90 days: 1 lead, 0 taken in time, 1 at risk, 1 missed",
        "General: 7 days: no leads; 90 days: 1 lead, 0 taken in time, 1 at risk, 1 missed, median 10 h",
      ].map((text) => ({ text })),
    });
    // /metrics reads the same at the real clock: the rows moved to the same distance from it. The
    // office hours fall elsewhere on them then (the real clock's hour), so its figures are compared
    // with the same count made at that moment, not with Friday's words above.
    const shift = Date.now() - friday;
    await db.query("UPDATE inquiries SET received_at = received_at + ?, taken_at = taken_at + ?", [
      shift,
      shift,
    ]);
    const metrics = createMetrics({ facts });
    metrics.watchOutbox(db);
    const text = await metrics.registry.metrics();
    const [week, quarter] = await Promise.all(
      [7, 90].map((days) => promiseByService(db, days, Date.now(), facts)),
    );
    const line = (lines: typeof week, service: string) => lines?.find((l) => l.service === service);
    expect(text).toMatch(/^contact_promise_leads\{window="7d",service="All"\} 3$/m);
    expect(text).toMatch(
      new RegExp(
        `^contact_promise_missed\\{window="7d",service="AI Consulting"\\} ${line(week, "AI Consulting")?.missed}$`,
        "m",
      ),
    );
    expect(text).toMatch(
      new RegExp(
        `^contact_promise_at_risk\\{window="90d",service="General"\\} ${line(quarter, "General")?.atRisk}$`,
        "m",
      ),
    );
    const median = (line(quarter, "All")?.takeMedianMs ?? Number.NaN) / 1000;
    expect(text).toMatch(
      new RegExp(
        `^contact_promise_take_median_business_seconds\\{window="90d",service="All"\\} ${median}$`,
        "m",
      ),
    );
    // No lead, no sample; nobody taken, no median (never a 0 that reads "answered at once").
    expect(text).not.toMatch(/^contact_promise_\w+\{window="7d",service="General"\}/m);
    expect(text).not.toMatch(
      /^contact_promise_take_median_business_seconds\{[^}]*service="Cloud"/m,
    );
  });
});
