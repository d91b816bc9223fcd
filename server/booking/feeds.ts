import { fork } from "node:child_process";
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { z } from "zod";
import { site } from "../../app/config/site.ts";
import type { Config } from "../config.ts";
import { hostNamed } from "../contact/delivery/routing.ts";
import { officeTime } from "../contact/review/clock.ts";
import type { Sql } from "../contact/storage/database.ts";
import { queue } from "../contact/storage/outbox.ts";
import { isLoopbackHost } from "../guards.ts";
import { DAY_MS, HOUR_MS } from "../time.ts";
import type { Read } from "./calendar.ts";
import type { Busy } from "./slots.ts";
import { feedsRead, recordFeed } from "./store.ts";

/**
 * The company's calendars, read as iCalendar feeds (what Microsoft 365 and Google Calendar publish
 * at a secret address): every 15th housekeeping turn on each instance (a second read of a calendar
 * harms nothing, so no instance claims it: ADR 0024's one claim stays the outbox's), its events read
 * in a process of their own (feed-reader.ts, calendar.ts), the busy times ahead kept in the database
 * as the last good copy. A feed too costly to read (more than READ_LIMIT_MS or READ_HEAP_MB in its reader, or more
 * occurrences than calendar.ts allows) is not read, like one that does not answer. A feed not read
 * well within FEED_STALE_MS (or never) offers no slot, since it cannot be checked, and alerts once
 * through the outbox. Its address is a secret: the log names a feed by the start of its hash.
 */

const FEED_EVERY_TURNS = 15;
const triedAt = new Map<string, number>();
type FeedConfig = Pick<Config, "BOOKING_FEEDS" | "HOUSEKEEPING_TURN_MS" | "LEAD_ESCALATION_TO">;
const FEED_STALE_MS = 2 * HOUR_MS;
const AHEAD_MS = 45 * DAY_MS;
const MAX_BYTES = 5_000_000;
// A 5 MB feed of ordinary events took 2-5 s and under 128 MB here; one of 5 MB of empty lines, more.
const READ_LIMIT_MS = 10_000;
const READ_HEAP_MB = 128;
// The reader runs from its source, found beside this module's (ADR 0030: the build keeps this URL).
const READER = new URL("./feed-reader.ts", import.meta.url);

export const bookingVariables = {
  BOOKING_FEEDS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const urls = (v ?? "").split(/\s+/).filter(Boolean);
      for (const u of urls) {
        const url = z.url({ protocol: /^https?$/ }).safeParse(u).success ? new URL(u) : null;
        const named =
          url &&
          (isLoopbackHost(url.hostname) || hostNamed(url.hostname, site.privacy.calendar.hosts));
        if (!named)
          ctx.addIssue({
            code: "custom",
            message: url ? unnamed(url.hostname) : `not an http(s):// address`,
          });
      }
      return urls;
    }),
};

const feedId = (url: string) => createHash("sha256").update(url).digest("hex");

// As for channels (routing.ts), the privacy notice names who we read from: refused at start otherwise.
const unnamed = (host: string) => {
  const { name, hosts } = site.privacy.calendar;
  return `reads a calendar at ${host}, a host the privacy notice does not name (${name}: ${hosts.join(", ")}): add it to privacy.calendar.hosts in app/config/site.ts and rebuild, or use a named host`;
};

/** The busy times between `from` and `to` in a feed's text, read by a child process within READ_LIMIT_MS and READ_HEAP_MB. */
function readApart(text: string, from: number, to: number, stop: AbortSignal): Promise<Read> {
  return new Promise((resolve, reject) => {
    // Stopping the server ends the read: its reader is killed, never left behind.
    const reader = fork(READER, {
      signal: stop,
      killSignal: "SIGKILL",
      execArgv: [`--max-old-space-size=${READ_HEAP_MB}`],
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    // What it says when it dies (V8's out-of-memory report), kept short: never the server's log.
    let said = "";
    reader.stderr?.on("data", (d: Buffer) => {
      said = (said + d).slice(-2_000);
    });
    const timer = setTimeout(() => {
      reject(new Error(`too costly to read: not done in ${READ_LIMIT_MS / 1000} s`));
      reader.kill("SIGKILL");
    }, READ_LIMIT_MS);
    reader.once("message", (m: { read: Read } | { refused: string }) =>
      "read" in m ? resolve(m.read) : reject(new Error(m.refused)),
    );
    reader.once("error", reject);
    // Settles nothing once the answer came; otherwise the reader ended without one.
    reader.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(
        new Error(
          /heap out of memory|heap limit/i.test(said)
            ? `too costly to read: over ${READ_HEAP_MB} MB`
            : `its reader stopped (${signal ?? `exit code ${code}`})`,
        ),
      );
    });
    reader.send({ text, from, to, office: site.timeZone });
  });
}

async function read(url: string, stop: AbortSignal): Promise<string> {
  // No redirect is followed: it could lead to a host the privacy notice does not name.
  const res = await fetch(url, {
    redirect: "error",
    signal: AbortSignal.any([stop, AbortSignal.timeout(15_000)]),
  });
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += chunk.byteLength;
    if (size > MAX_BYTES) throw new Error(`larger than ${MAX_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The busy times of every feed, or null when one of them was not read well within FEED_STALE_MS. */
export async function calendarBusy(sql: Sql, urls: string[], now: number): Promise<Busy | null> {
  if (urls.length === 0) return [];
  const copies = new Map((await feedsRead(sql)).map((f) => [f.feed, f]));
  const wanted = urls.map((u) => copies.get(feedId(u)));
  if (wanted.some((f) => !f || now - f.readAt > FEED_STALE_MS)) return null;
  return wanted.flatMap((f) => f?.busy ?? []);
}

/** The housekeeping turn's part: read the feeds whose turn it is; alert once for each feed gone stale. */
export async function refreshFeeds(
  db: Sql,
  config: FeedConfig,
  parent: Logger,
  now: number,
  stop: AbortSignal,
): Promise<void> {
  const urls = config.BOOKING_FEEDS ?? [];
  if (urls.length === 0) return;
  const log = parent.child({ task: "calendar-feeds" });
  for (const url of urls) {
    const feed = feedId(url);
    if (
      now - (triedAt.get(feed) ?? Number.NEGATIVE_INFINITY) <
      config.HOUSEKEEPING_TURN_MS * FEED_EVERY_TURNS
    )
      continue;
    triedAt.set(feed, now);
    try {
      if (stop.aborted) return;
      const text = await read(url, stop);
      log.info(
        { feed: feed.slice(0, 8), bytes: text.length },
        "calendar feed fetched: reading its events",
      );
      const { busy, unknownZones } = await readApart(text, now - DAY_MS, now + AHEAD_MS, stop);
      await recordFeed(db, feed, busy, now);
      // A zone neither the feed nor Intl knows was read on the office's clock.
      const unknown = unknownZones.length > 0 ? { unknownZones } : {};
      log.info({ feed: feed.slice(0, 8), busy: busy.length, ...unknown }, "calendar feed read");
    } catch (err) {
      // The server is stopping: nothing went wrong with the calendar.
      if (stop.aborted) return;
      log.warn(
        { feed: feed.slice(0, 8), reason: (err as Error).message },
        "calendar feed not read: the last good copy is kept",
      );
    }
  }
  const copies = new Map((await feedsRead(db)).map((c) => [c.feed, c.readAt]));
  for (const f of urls.map((u) => ({ feed: feedId(u), readAt: copies.get(feedId(u)) ?? 0 }))) {
    if (now - f.readAt <= FEED_STALE_MS) continue;
    const text = `The website could not read one of our calendars (feed ${f.feed.slice(0, 8)}) ${f.readAt ? `since ${officeTime(f.readAt)}` : "at all"}.
Until it can, the booking page offers visitors no times and says we will reply by email as promised.
Check that the calendar is still published at its address; the website tries again every 15 minutes.`;
    const subject = "The booking page offers no times: a calendar cannot be read";
    // One per feed and outage, whichever instance sees it first (the id is the primary key).
    const id = `booking-feed-${f.feed.slice(0, 16)}-${f.readAt}`;
    const payload = JSON.stringify({
      subject,
      text,
      inquiryIds: [],
      to: config.LEAD_ESCALATION_TO,
    });
    const alert = {
      id,
      kind: "calendar-unread" as const,
      channel: "email",
      target: "default",
      messageId: id,
      payload,
    };
    await db.transaction((tx) => queue(tx, null, [alert], now));
  }
}
