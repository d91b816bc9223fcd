import { type Site, site } from "../../app/config/site.ts";
import { businessDeadline, type Calendar, openOn, wallClock } from "../contact/review/promise.ts";

/**
 * Which times the booking page offers, and how every booking time is said. A slot is
 * `consultationMinutes` long, starts at opening or at the end of the one before, lies within the
 * office hours of one of the next `businessDaysAhead` days the office is open (holidays are closed),
 * starts no sooner than `noticeBusinessHours` business hours from now, and overlaps no busy time:
 * a calendar feed's, or one another inquiry's booking holds (store.ts). One function decides, for
 * the page and the pick.
 */

export type Facts = Calendar & Pick<Site, "consultationMinutes" | "booking">;
export type Busy = Array<[number, number]>;

const DAY_MS = 86_400_000;

export const slotMs = (facts: Facts = site) => facts.consultationMinutes * 60_000;

export function openSlots(now: number, busy: Busy, facts: Facts = site): number[] {
  const length = slotMs(facts);
  const earliest = businessDeadline(now, facts.booking.noticeBusinessHours * 3_600_000, facts);
  if (earliest === null) return [];
  const today = wallClock(now, facts.timeZone);
  const slots: number[] = [];
  for (let i = 0, days = 0; days < facts.booking.businessDaysAhead && i < 366; i++) {
    const open = openOn(new Date(Date.UTC(today.y, today.m - 1, today.d) + i * DAY_MS), facts);
    if (open.length > 0) days += 1;
    for (const [opens, closes] of open)
      for (let at = opens; at + length <= closes; at += length)
        if (at >= earliest && !busy.some(([b, e]) => b < at + length && e > at)) slots.push(at);
  }
  return slots;
}

/** Until when a pick made `now` for `at` holds its time: `holdBusinessHours` on the office's clock, never past `at`. */
export const holdUntil = (now: number, at: number, facts: Facts = site) =>
  Math.min(at, businessDeadline(now, facts.booking.holdBusinessHours * 3_600_000, facts) ?? at);

/** A zone the page may show times in: any IANA zone (a browser's), else the office's. */
export function zoneOf(given: unknown, facts: Pick<Facts, "timeZone"> = site): string {
  if (typeof given !== "string" || given.length > 64) return facts.timeZone;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: given }).resolvedOptions().timeZone;
  } catch {
    return facts.timeZone;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
const format = (zone: string, options: Intl.DateTimeFormatOptions) => {
  const key = `${zone} ${JSON.stringify(options)}`;
  const f = formats.get(key) ?? new Intl.DateTimeFormat("en-US", { timeZone: zone, ...options });
  formats.set(key, f);
  return f;
};
// ICU's narrow and thin spaces (before AM/PM, around the dash): plain spaces, and no space at the dash.
const plain = (text: string) => text.replace(/[\u202f\u2009\u00a0]/g, " ").replace(/ ?– ?/g, "–");

const WHEN = { weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" } as const;

/** "Tue, Dec 1, 10:30–11:00 AM MST": a slot as people read it, on the clock of `zone`. */
export const sayRange = (at: number, zone: string, facts: Facts = site) =>
  plain(format(zone, { ...WHEN, timeZoneName: "short" }).formatRange(at, at + slotMs(facts)));

/** "10:30 AM" and the day's heading "Tuesday, December 1", in `zone`. */
export const sayTime = (at: number, zone: string) =>
  plain(format(zone, { hour: "numeric", minute: "2-digit" }).format(at));
export const sayZone = (at: number, zone: string) =>
  format(zone, { timeZoneName: "short" })
    .formatToParts(at)
    .find((p) => p.type === "timeZoneName")?.value ?? zone;
export const sayDay = (at: number, zone: string) =>
  format(zone, { weekday: "long", month: "long", day: "numeric" }).format(at);
