import { type Day, WEEK } from "../../../app/config/derive.ts";
import { type Site, site } from "../../../app/config/site.ts";
import { DAY_MS, HOUR_MS } from "../../time.ts";
import type { Sql } from "../storage/database.ts";
import type { Inquiry } from "../storage/records.ts";
import { formatter, replyBy } from "./clock.ts";

/**
 * The reply promise counted as the company counts it (ADR 0020), for the reminder, the metrics, the CLI
 * and the webhook: business time is site.ts's officeHours in its timeZone, minus its holidays.
 */

/** The office's hours: its opening times, its zone and its holidays (app/config/site.ts). */
export type OfficeHours = Pick<Site, "officeHours" | "timeZone" | "holidays">;
export type Promised = OfficeHours & {
  response: Pick<Site["response"], "promiseBusinessHours" | "atRiskShare">;
};

// How far ahead open hours are looked for: past it, a calendar with none would loop for ever.
const HORIZON_DAYS = 400;

const NUMERIC = Object.fromEntries(
  ["year", "month", "day", "hour", "minute", "second"].map((k) => [k, "numeric"]),
);

export function wallClock(at: number, timeZone: string) {
  const f = formatter(timeZone, { hourCycle: "h23", ...NUMERIC });
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, Number(x.value)]));
  const [y = 0, m = 1, d = 1] = [p.year, p.month, p.day];
  const asUtc = Date.UTC(y, m - 1, d, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
  return { y, m, d, offsetMs: asUtc - Math.floor(at / 1000) * 1000 };
}

/** The instant a wall-clock time (its fields as Date.UTC takes them) is in `zone`. */
export function instantOn(zone: string, ...fields: Parameters<typeof Date.UTC>) {
  const naive = Date.UTC(...fields);
  // The offset at the guess, then at the answer (a day whose offset changes: daylight saving time).
  return naive - wallClock(naive - wallClock(naive, zone).offsetMs, zone).offsetMs;
}

function instantOf(y: number, m: number, d: number, hhmm: string, zone: string) {
  const [hh = 0, mm = 0] = hhmm.split(":").map(Number);
  return instantOn(zone, y, m - 1, d, hh, mm);
}

// A day's open hours worked out once per office hours: the metrics read many leads.
const dayCache = new WeakMap<OfficeHours, Map<string, Array<[number, number]>>>();

export function openOn(day: Date, hours: OfficeHours): Array<[number, number]> {
  const days = dayCache.get(hours) ?? new Map<string, Array<[number, number]>>();
  dayCache.set(hours, days);
  const date = day.toISOString().slice(0, 10);
  const known = days.get(date);
  if (known) return known;
  const [y, m, d] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
  // getUTCDay counts from Sunday, the week of the facts from Monday.
  const weekday = WEEK[(day.getUTCDay() + 6) % 7] as Day;
  const open = hours.holidays.some((h) => h.date === date)
    ? []
    : hours.officeHours.flatMap(
        ({ opens, closes, days }): Array<[number, number]> =>
          opens && closes && (days as readonly string[]).includes(weekday)
            ? [
                [
                  instantOf(y, m, d, opens, hours.timeZone),
                  instantOf(y, m, d, closes, hours.timeZone),
                ],
              ]
            : [],
      );
  days.set(date, open);
  return open;
}

function* openIntervals(start: number, hours: OfficeHours): Generator<[number, number]> {
  const first = wallClock(start, hours.timeZone);
  for (let i = 0; i < HORIZON_DAYS; i++)
    yield* openOn(new Date(Date.UTC(first.y, first.m - 1, first.d) + i * DAY_MS), hours);
}

// The same, walking back from `end`'s day: the latest intervals first.
function* openIntervalsBefore(end: number, hours: OfficeHours): Generator<[number, number]> {
  const last = wallClock(end, hours.timeZone);
  for (let i = 0; i < HORIZON_DAYS; i++)
    yield* openOn(new Date(Date.UTC(last.y, last.m - 1, last.d) - i * DAY_MS), hours).toReversed();
}

export function businessMsBetween(from: number, to: number, hours: OfficeHours = site): number {
  let total = 0;
  for (const [open, close] of openIntervals(from, hours)) {
    if (open >= to) break;
    total += Math.max(0, Math.min(close, to) - Math.max(open, from));
  }
  return total;
}

export function businessDeadline(
  from: number,
  businessMs: number,
  hours: OfficeHours = site,
): number | null {
  let left = businessMs;
  for (const [open, close] of openIntervals(from, hours)) {
    const start = Math.max(open, from);
    if (close <= start) continue;
    if (close - start >= left) return start + left;
    left -= close - start;
  }
  return null;
}

/** The instant `businessMs` of business time before `end`: from then on, less is left until it. */
export function businessBefore(
  end: number,
  businessMs: number,
  hours: OfficeHours = site,
): number | null {
  let left = businessMs;
  for (const [open, close] of openIntervalsBefore(end, hours)) {
    const stop = Math.min(close, end);
    if (stop <= open) continue;
    if (stop - open >= left) return stop - left;
    left -= stop - open;
  }
  return null;
}

/**
 * Business time from `from` to `to` laid out once, for many leads at a time (the public figure): the
 * same open hours as businessMsBetween and businessDeadline, each lead then a binary search instead
 * of a walk through its days.
 */
export function businessLine(from: number, to: number, hours: OfficeHours = site) {
  const spans: Array<[number, number]> = [];
  for (const [open, close] of openIntervals(from, hours)) {
    if (open >= to) break;
    spans.push([open, close]);
  }
  // before[i]: the business time of the spans ahead of spans[i].
  const before = [0];
  for (const [open, close] of spans) before.push((before.at(-1) ?? 0) + close - open);
  // The last span opening at or before `at` (-1: none).
  const spanAt = (at: number) => {
    let [lo, hi] = [0, spans.length - 1];
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((spans[mid] as [number, number])[0] <= at) lo = mid + 1;
      else hi = mid - 1;
    }
    return hi;
  };
  const upTo = (at: number) => {
    const i = spanAt(at);
    if (i < 0) return 0;
    const [open, close] = spans[i] as [number, number];
    return (before[i] ?? 0) + Math.min(close, at) - open;
  };
  // The instant at which `target` business time of the line has passed (null: past its end).
  const instantOf = (target: number): number | null => {
    let [lo, hi] = [0, spans.length - 1];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((before[mid + 1] ?? 0) >= target) hi = mid;
      else lo = mid + 1;
    }
    if ((before[lo + 1] ?? 0) < target) return null;
    return (spans[lo] as [number, number])[0] + target - (before[lo] ?? 0);
  };
  const end = spans.at(-1)?.[1] ?? from;
  const line = {
    between: (a: number, b: number) => upTo(b) - upTo(a),
    /** As businessDeadline; null past the line's end. */
    deadline: (start: number, ms: number) => instantOf(upTo(start) + ms),
    /** As businessBefore; null before the line's start or with `until` past its end. */
    before: (until: number, ms: number) =>
      until > end || upTo(until) < ms ? null : instantOf(upTo(until) - ms),
    /** As nextOpening: the first open instant at or after `at`. */
    opening: (at: number) => {
      const next = line.deadline(at, 1);
      return next === null ? null : next - 1;
    },
  };
  return line;
}

export type BusinessLine = ReturnType<typeof businessLine>;

export function sayBusinessTime(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const [h, min] = [Math.floor(minutes / 60), minutes % 60];
  return h > 0 ? `${h} h${min > 0 ? ` ${min} min` : ""}` : `${min} min`;
}

export const promiseMs = (facts: Promised = site) => facts.response.promiseBusinessHours * HOUR_MS;
export const promiseDueAt = (receivedAt: number, facts: Promised = site) =>
  businessDeadline(receivedAt, promiseMs(facts), facts);

/** What a lead received at `receivedAt` is promised, stored with it then (migration 007). */
export const promisedAt = (receivedAt: number, facts: Promised = site) => ({
  replyDueAt: promiseDueAt(receivedAt, facts),
  replyHours: facts.response.promiseBusinessHours,
});

type Promisee = Pick<Inquiry, "receivedAt" | "replyDueAt" | "replyHours">;

/**
 * A lead's promise as its email said it: fixed at receipt, so changing the office hours or the
 * promise moves no lead already received. A lead from before 007 not yet filled in (the server does
 * at its start: `fillPromises`) is read by the rule in force.
 */
export function promiseOf(i: Promisee, facts: Promised = site) {
  if (i.replyHours != null) return { dueAt: i.replyDueAt ?? null, hours: i.replyHours };
  const { replyDueAt, replyHours } = promisedAt(i.receivedAt, facts);
  return { dueAt: replyDueAt, hours: replyHours };
}

/** "Reply by Tue, Jan 19, 12:00 PM MST (4 business hours)": the lead's promise, on the office's clock. */
export function replyByOf(i: Promisee, facts: Promised = site) {
  const { dueAt, hours } = promiseOf(i, facts);
  return replyBy(dueAt, { ...facts, response: { ...facts.response, promiseBusinessHours: hours } });
}

/** The first instant at or after `at` that the office is open (`at` itself when it is). */
export function nextOpening(at: number, hours: OfficeHours = site): number | null {
  const deadline = businessDeadline(at, 1, hours);
  return deadline === null ? null : deadline - 1;
}

/**
 * When a lead nobody took is at risk: `atRiskShare` of its promise has passed (what is left of it
 * is the rest), the office open (a share used up at closing time is at risk when it next opens,
 * when someone can act on it). `line`: business time laid out already (many leads at once).
 */
export function atRiskAt(i: Promisee, facts: Promised = site, line?: BusinessLine): number | null {
  // Counted back from the lead's own "Reply by" (fixed when it came), so a change of the office
  // hours since moves the warning with the hours, never past the deadline it warns of.
  const { dueAt, hours } = promiseOf(i, facts);
  if (dueAt === null) return null;
  const on = line ?? businessLine(i.receivedAt, dueAt + 1, facts);
  const at = on.before(dueAt, (1 - facts.response.atRiskShare) * hours * HOUR_MS);
  return at === null ? null : on.opening(Math.max(at, i.receivedAt));
}

export function timingOf(i: Pick<Inquiry, "takenAt"> & Promisee, now: number, facts?: Promised) {
  const { dueAt } = promiseOf(i, facts);
  const until = i.takenAt ?? now;
  const waitedBusinessMs = businessMsBetween(i.receivedAt, until, facts);
  return {
    dueAt,
    takeBusinessMs: i.takenAt == null ? null : waitedBusinessMs,
    waitedBusinessMs,
    missed: dueAt !== null && until > dueAt,
  };
}

/** `reply` in every webhook event (docs/contact-api.md). */
export function replyOf(i: Inquiry, now: number, facts: Promised = site) {
  const t = timingOf(i, now, facts);
  const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);
  return {
    promiseBusinessHours: promiseOf(i, facts).hours,
    dueAt: iso(t.dueAt),
    replyBy: replyByOf(i, facts),
    takenAt: iso(i.takenAt),
    takenBy: i.takenBy ?? null,
    businessSecondsToTake: t.takeBusinessMs === null ? null : Math.round(t.takeBusinessMs / 1000),
    remindedAt: iso(i.remindedAt),
    missed: t.missed,
  };
}

/**
 * The leads stored before their promise was (migration 007), given the one the rule in force makes,
 * once, at the server's start: from then on, changing the office hours moves them no more. In
 * batches; two instances starting together write the same values, and the second finds none left.
 */
export async function fillPromises(db: Sql, facts: Promised = site): Promise<number> {
  let filled = 0;
  for (;;) {
    const rows = await db.query<{ id: string; received_at: number }>(
      "SELECT id, received_at FROM inquiries WHERE reply_hours IS NULL ORDER BY id LIMIT 500",
    );
    if (rows.length === 0) return filled;
    await db.transaction(async (tx) => {
      for (const r of rows) {
        const { replyDueAt, replyHours } = promisedAt(Number(r.received_at), facts);
        const set = await tx.query(
          "UPDATE inquiries SET reply_due_at = ?, reply_hours = ? WHERE id = ? AND reply_hours IS NULL RETURNING id",
          [replyDueAt, replyHours, r.id],
        );
        filled += set.length;
      }
    });
  }
}
