import { type Site, site } from "../../../app/config/site.ts";
import type { Inquiry } from "../storage/records.ts";
import { replyBy } from "./clock.ts";

/**
 * The reply promise counted as the company counts it (ADR 0020): business time is the office
 * hours of `app/config/site.ts` (officeHours, in its timeZone), minus its holidays. The reminder
 * (reminders.ts), the metrics, the CLI and the webhook payload all count with these two functions.
 */

export type Calendar = Pick<Site, "officeHours" | "timeZone" | "holidays">;
export type Promised = Calendar & { response: Pick<Site["response"], "promiseBusinessHours"> };

const DAY_MS = 86_400_000;
const HORIZON_DAYS = 400;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

const formatters = new Map<string, Intl.DateTimeFormat>();
export function wallClock(at: number, zone: string) {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, f);
  }
  const p: Record<string, number> = {};
  for (const x of f.formatToParts(at)) p[x.type] = Number(x.value);
  const [y = 0, m = 1, d = 1] = [p.year, p.month, p.day];
  const asUtc = Date.UTC(y, m - 1, d, p.hour ?? 0, p.minute ?? 0, p.second ?? 0);
  return { y, m, d, offsetMs: asUtc - Math.floor(at / 1000) * 1000 };
}

function instantOf(y: number, m: number, d: number, hhmm: string, zone: string) {
  const [hh = 0, mm = 0] = hhmm.split(":").map(Number);
  const naive = Date.UTC(y, m - 1, d, hh, mm);
  // The offset at the guess, then at the answer (a day whose offset changes: daylight saving time).
  const first = naive - wallClock(naive, zone).offsetMs;
  return naive - wallClock(first, zone).offsetMs;
}

const dayCache = new WeakMap<Calendar, Map<string, Array<[number, number]>>>();

export function openOn(day: Date, calendar: Calendar): Array<[number, number]> {
  let days = dayCache.get(calendar);
  if (!days) {
    days = new Map();
    dayCache.set(calendar, days);
  }
  const date = day.toISOString().slice(0, 10);
  const known = days.get(date);
  if (known) return known;
  const [y, m, d] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
  const weekday = WEEKDAYS[day.getUTCDay()];
  const open: Array<[number, number]> = calendar.holidays.some((h) => h.date === date)
    ? []
    : calendar.officeHours.flatMap(
        (hours): Array<[number, number]> =>
          hours.opens && hours.closes && hours.days.includes(weekday as (typeof hours.days)[number])
            ? [
                [
                  instantOf(y, m, d, hours.opens, calendar.timeZone),
                  instantOf(y, m, d, hours.closes, calendar.timeZone),
                ],
              ]
            : [],
      );
  days.set(date, open);
  return open;
}

function* openIntervals(start: number, calendar: Calendar): Generator<[number, number]> {
  const first = wallClock(start, calendar.timeZone);
  for (let i = 0; i < HORIZON_DAYS; i++) {
    yield* openOn(new Date(Date.UTC(first.y, first.m - 1, first.d) + i * DAY_MS), calendar);
  }
}

export function businessMsBetween(from: number, to: number, calendar: Calendar = site): number {
  let total = 0;
  for (const [open, close] of openIntervals(from, calendar)) {
    if (open >= to) break;
    total += Math.max(0, Math.min(close, to) - Math.max(open, from));
  }
  return total;
}

export function businessDeadline(from: number, businessMs: number, calendar: Calendar = site): number | null {
  let left = businessMs;
  for (const [open, close] of openIntervals(from, calendar)) {
    const start = Math.max(open, from);
    if (close <= start) continue;
    if (close - start >= left) return start + left;
    left -= close - start;
  }
  return null;
}

export function sayBusinessTime(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const h = Math.floor(minutes / 60);
  const min = minutes % 60;
  return h > 0 ? `${h} h${min > 0 ? ` ${min} min` : ""}` : `${min} min`;
}

export const promiseMs = (facts: Promised = site) => facts.response.promiseBusinessHours * 3_600_000;

export const promiseDueAt = (receivedAt: number, facts: Promised = site) =>
  businessDeadline(receivedAt, promiseMs(facts), facts);

/* One lead's promise: its figures, and as a webhook receiver gets them. */

export type LeadTiming = {
  dueAt: number | null;
  takeBusinessMs: number | null;
  waitedBusinessMs: number;
  missed: boolean;
};

export function timingOf(i: Pick<Inquiry, "receivedAt" | "takenAt">, now: number, facts?: Promised): LeadTiming {
  const dueAt = promiseDueAt(i.receivedAt, facts);
  const until = i.takenAt ?? now;
  const waitedBusinessMs = businessMsBetween(i.receivedAt, until, facts);
  return {
    dueAt,
    takeBusinessMs: i.takenAt == null ? null : waitedBusinessMs,
    waitedBusinessMs,
    missed: dueAt !== null && until > dueAt,
  };
}

/**
 * A lead's reply promise as a webhook receiver (a CRM) gets it (`reply` in every event: docs/contact-api.md).
 */
export function replyOf(
  i: Pick<Inquiry, "receivedAt" | "takenAt" | "takenBy" | "remindedAt">,
  now: number,
  facts: Promised = site,
) {
  const t = timingOf(i, now, facts);
  const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);
  return {
    promiseBusinessHours: facts.response.promiseBusinessHours,
    dueAt: iso(t.dueAt),
    replyBy: replyBy(t.dueAt, facts),
    takenAt: iso(i.takenAt),
    takenBy: i.takenBy ?? null,
    businessSecondsToTake: t.takeBusinessMs === null ? null : Math.round(t.takeBusinessMs / 1000),
    remindedAt: iso(i.remindedAt),
    missed: t.missed,
  };
}
