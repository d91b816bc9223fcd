import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { slotsOf } from "../support/booking-page.ts";
import {
  CalendarFeeds,
  emptyLines,
  endlessDaily,
  fixture,
  neverMatching,
} from "../support/calendar-feeds.ts";
import { freePort } from "../support/ports.ts";
import { sendAsPage } from "../support/requests.ts";
import { type RunningServer, startServer } from "../support/server.ts";

/**
 * The company's calendars as the booking page reads them (server/booking/feeds.ts, calendar.ts): the
 * production server on a controlled clock (Debian's faketime), real HTTP servers publishing calendars
 * shaped as Microsoft 365, Google, iCloud and Nextcloud publish them, and the red team's hostile ones.
 */

const FAKETIME = {
  TZ: "UTC",
  LD_PRELOAD: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
  FAKETIME_DONT_RESET: "1",
};
// Housekeeping every 200 ms: the calendars are read every 15th turn, every 3 s.
const TUNING = { OUTBOX_POLL_MS: 50, SPAM_MIN_FILL_MS: 0, HOUSEKEEPING_TURN_MS: 200 };

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function site(env: Record<string, string>) {
  const port = await freePort();
  const server = await startServer(
    {
      SITE_URL: `http://127.0.0.1:${port}`,
      SPAM_FILTER: "off",
      RATE_LIMIT_PER_MINUTE: "1000",
      ...env,
    },
    port,
    TUNING,
  );
  cleanups.push(() => server.stop());
  return server;
}

async function feeds() {
  const f = await new CalendarFeeds().start();
  cleanups.push(f.stop);
  return f;
}

/** A visitor's booking page: the link the answer to their message carries. */
async function bookingPage(server: RunningServer) {
  const res = await sendAsPage(server.url, {
    name: "Dana Whitfield",
    email: "dana@example.org",
    message: "Hello!",
  });
  expect(res.status).toBe(201);
  return `${server.url}${((await res.json()) as { booking: string }).booking}`;
}
const offered = async (link: string) => slotsOf(await (await fetch(link)).text());

/** The server's log lines, parsed. */
const linesOf = (output: string) =>
  output
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map(
      (l) =>
        JSON.parse(l) as {
          time: string;
          msg?: string;
          reason?: string;
          feed?: string;
          path?: string;
        },
    );

// Monday, December 21, 2026, 9:05 AM in Denver (UTC−7): the next open days are Dec 21–23, 26, 28–31, Jan 2 and 4.
const MST = (month: number, day: number, hh: number, mm = 0) =>
  Date.UTC(month === 12 ? 2026 : 2027, month - 1, day, hh + 7, mm);

describe("calendar feeds", { timeout: 180_000 }, () => {
  it("offers what every service's calendar leaves free, on the office's clock", async () => {
    const f = await feeds();
    const names = ["google", "microsoft-365-without-zones", "icloud", "nextcloud", "hand-written"];
    const urls = names.map((n) => f.publish(n, fixture(n)));
    const server = await site({
      ...FAKETIME,
      FAKETIME: "@2026-12-21 16:05:00",
      BOOKING_FEEDS: urls.join(" "),
    });
    const link = await bookingPage(server);
    await expect
      .poll(async () => (await offered(link)).length, { timeout: 30_000 })
      .toBeGreaterThan(0);
    const slots = await offered(link);
    const open = (...times: number[]) => expect(slots).toEqual(expect.arrayContaining(times));
    const busy = (...times: number[]) => expect(slots.filter((s) => times.includes(s))).toEqual([]);

    // Monday: lunch daily since 1970 (Nextcloud), the Spanish course (weekly, counted); after 5 PM
    // open, though Tuesday's all-day offsite (Google) begins at 5 PM on the UTC day.
    open(MST(12, 21, 11, 30), MST(12, 21, 13), MST(12, 21, 17), MST(12, 21, 17, 30));
    busy(MST(12, 21, 12), MST(12, 21, 12, 30), MST(12, 21, 16), MST(12, 21, 16, 30));
    // Tuesday: the offsite, all day on the office's clock.
    expect(slots.filter((s) => s >= MST(12, 22, 0) && s < MST(12, 23, 0))).toEqual([]);
    // Wednesday: the standup, the weekly planning (Microsoft 365, set in summer), the cleaning (no
    // zone: the office's clock); the vendor demo was cancelled.
    busy(
      MST(12, 23, 9),
      MST(12, 23, 10),
      MST(12, 23, 10, 30),
      MST(12, 23, 16),
      MST(12, 23, 16, 30),
    );
    open(MST(12, 23, 9, 30), MST(12, 23, 11), MST(12, 23, 13), MST(12, 23, 17));
    // Saturday: a call set in Chicago's zone, which the feed names without defining (11–12 in Denver).
    open(MST(12, 26, 10), MST(12, 26, 10, 30), MST(12, 26, 13), MST(12, 26, 13, 30));
    busy(MST(12, 26, 11), MST(12, 26, 11, 30));
    // Monday 28: the standup moved to 11:30; focus time is free; a call in Eastern time; the
    // Spanish course's last lesson.
    open(MST(12, 28, 9), MST(12, 28, 14), MST(12, 28, 14, 30), MST(12, 28, 15, 30));
    busy(MST(12, 28, 11, 30), MST(12, 28, 15), MST(12, 28, 16));
    // Tuesday 29: the standup's occurrence cancelled; the dentist (iCloud, a DURATION); a tentative hold.
    open(MST(12, 29, 9), MST(12, 29, 15, 30));
    busy(MST(12, 29, 14), MST(12, 29, 14, 30), MST(12, 29, 15), MST(12, 29, 16));
    // Wednesday 30: the planning left out (EXDATE); the call with Boston, in New York's zone.
    open(MST(12, 30, 10), MST(12, 30, 10, 30), MST(12, 30, 14));
    busy(MST(12, 30, 9), MST(12, 30, 13), MST(12, 30, 13, 30));
    // Thursday 31: no standup (EXDATE); the review in UTC; a delivery in a zone nobody knows (office clock).
    open(MST(12, 31, 9), MST(12, 31, 11));
    busy(MST(12, 31, 10), MST(12, 31, 10, 30), MST(12, 31, 15));
    // Saturday, January 2: inventory day (Microsoft 365, all day). Monday 4: no standup, no course.
    expect(slots.filter((s) => s >= MST(1, 2, 0) && s < MST(1, 3, 0))).toEqual([]);
    open(MST(1, 4, 9), MST(1, 4, 16));

    const read = linesOf(await server.logged()).filter((l) => l.msg === "calendar feed read");
    expect(new Set(read.map((l) => l.feed)).size).toBe(names.length);
    expect(read).toContainEqual(expect.objectContaining({ unknownZones: ["Front desk time"] }));
  });

  it("answers at once while hostile calendars are read, and keeps their last good copies", async () => {
    const f = await feeds();
    const hostile = { endless: endlessDaily(400), heavy: emptyLines(), never: neverMatching() };
    const urls = Object.keys(hostile).map((n) => f.publish(n, fixture("google")));
    const server = await site({ BOOKING_FEEDS: urls.join(" ") });
    const readWell = async () =>
      new Set(
        linesOf(await server.logged()).flatMap((l) =>
          l.msg === "calendar feed read" ? [l.feed] : [],
        ),
      ).size;
    await expect.poll(readWell, { timeout: 30_000 }).toBe(urls.length);

    const switchedAt = Date.now();
    for (const [name, body] of Object.entries(hostile)) f.publish(name, body);
    let reading = true;
    const latencies: number[] = [];
    const probe = (async () => {
      while (reading) {
        const t = performance.now();
        const ok = await fetch(`${server.url}/healthz`, {
          signal: AbortSignal.timeout(5_000),
        }).then(
          (r) => r.ok,
          () => false,
        );
        latencies.push(ok ? performance.now() - t : Number.POSITIVE_INFINITY);
        // Paced, so that the server's output the test keeps (its last 256 KB) holds whole reads.
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const since = async () =>
      linesOf(await server.logged()).filter((l) => Date.parse(l.time) >= switchedAt);
    const reasons = async () =>
      (await since()).flatMap((l) =>
        l.msg?.startsWith("calendar feed not read") ? [l.reason] : [],
      );
    try {
      await expect
        .poll(reasons, { timeout: 90_000, interval: 500 })
        .toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^too costly to read: more than 10000 occurrences/),
            expect.stringMatching(/^too costly to read: over 128 MB/),
            expect.stringMatching(/^too costly to read: not done in 10 s/),
          ]),
        );
    } finally {
      reading = false;
      await probe;
    }

    // While a worker read a feed (from its "fetched" line to its outcome), the server answered.
    const lines = await since();
    const answeredDuring = lines.flatMap((outcome, i) => {
      if (!outcome.msg?.startsWith("calendar feed not read")) return [];
      const fetched = lines.findLastIndex(
        (l, j) => j < i && l.feed === outcome.feed && l.msg?.includes("fetched"),
      );
      return [
        {
          reason: outcome.reason,
          answered: lines.slice(fetched, i).filter((l) => l.path === "/healthz").length,
        },
      ];
    });
    expect(
      answeredDuring.find((r) => r.reason?.includes("not done in 10 s"))?.answered,
    ).toBeGreaterThan(20);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    // The last good copies stay in use: the booking page offers times.
    expect((await offered(await bookingPage(server))).length).toBeGreaterThan(0);
  });

  it("stops at once while a calendar is being read, and leaves no reader behind", async () => {
    const f = await feeds();
    // A feed whose reader works until its 10 s limit: the stop comes in the middle of it.
    const server = await site({ BOOKING_FEEDS: f.publish("never", neverMatching()) });
    await expect
      .poll(async () => (await server.logged()).includes("calendar feed fetched"), {
        timeout: 30_000,
      })
      .toBe(true);
    const readers = () =>
      readdirSync("/proc").filter((pid) => {
        try {
          const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
          const args = readFileSync(`/proc/${pid}/cmdline`, "utf8");
          return env.includes(`DATA_DIR=${server.dataDir}`) && args.includes("feed-reader");
        } catch {
          return false;
        }
      });
    expect(readers()).toHaveLength(1);
    const asked = performance.now();
    await server.stop();
    // Well within the reader's own 10 s: the stop ended the read.
    expect(performance.now() - asked).toBeLessThan(5_000);
    await expect.poll(readers, { timeout: 5_000 }).toEqual([]);
    expect(server.output()).not.toContain("calendar feed not read");
  });
});
