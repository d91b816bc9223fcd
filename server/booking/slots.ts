import { type Site, site } from "../../app/config/site.ts";
import {
  businessDeadline,
  type OfficeHours,
  openOn,
  wallClock,
} from "../contact/review/promise.ts";
import { DAY_MS, HOUR_MS } from "../time.ts";

/**
 * Which times the booking page offers, and how every booking time is said. A slot is
 * `consultationMinutes` long, starts at opening or at the end of the one before, lies within the
 * office hours of one of the next `businessDaysAhead` days the office is open (holidays are closed),
 * starts no sooner than `noticeBusinessHours` business hours from now, and overlaps no busy time:
 * a calendar feed's, or one another inquiry's booking holds (store.ts). One function decides, for
 * the page and the pick. How a time is said is the office clock's (contact/review/clock.ts).
 */

export type Facts = OfficeHours & Pick<Site, "consultationMinutes" | "booking">;
export type Busy = Array<[number, number]>;

export const slotMs = (facts: Facts = site) => facts.consultationMinutes * 60_000;

export function openSlots(now: number, busy: Busy, facts: Facts = site): number[] {
  const length = slotMs(facts);
  const earliest = businessDeadline(now, facts.booking.noticeBusinessHours * HOUR_MS, facts);
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
  Math.min(at, businessDeadline(now, facts.booking.holdBusinessHours * HOUR_MS, facts) ?? at);

/**
 * A zone the page may show times in: an IANA zone by name (a browser's), else the office's. Not an
 * offset such as "+05:30", which Intl also takes: thousands of them, each a formatter kept in memory.
 */
export function zoneOf(given: unknown, facts: Pick<Facts, "timeZone"> = site): string {
  if (typeof given !== "string" || given.length > 64 || !/^[A-Za-z]/.test(given))
    return facts.timeZone;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: given }).resolvedOptions().timeZone;
  } catch {
    return facts.timeZone;
  }
}

/**
 * When the visitor's reminder of a call at `startsAt` may go: within the office hours of the last
 * business day before the call's day (a weekend or holiday between is skipped), from its opening. A
 * call confirmed less than a day before it, or after that opening (its confirmation is the reminder),
 * has none; nor has one whose day is past, or its time. null: no business day in the month before.
 */
export function reminderWindow(
  startsAt: number,
  confirmedAt: number,
  hours: OfficeHours = site,
): [number, number] | null {
  const call = wallClock(startsAt, hours.timeZone);
  for (let i = 1; i <= 31; i++) {
    const open = openOn(new Date(Date.UTC(call.y, call.m - 1, call.d) - i * DAY_MS), hours);
    if (open.length === 0) continue;
    const [opens, closes] = [
      Math.min(...open.map(([o]) => o)),
      Math.max(...open.map(([, c]) => c)),
    ];
    if (startsAt - confirmedAt < DAY_MS || confirmedAt >= opens) return null;
    return [opens, Math.min(closes, startsAt)];
  }
  return null;
}

/** Whether the reminder of a call is due `now`: within its window. */
export function reminderDue(
  now: number,
  startsAt: number,
  confirmedAt: number,
  hours: OfficeHours = site,
) {
  const window = reminderWindow(startsAt, confirmedAt, hours);
  return window !== null && window[0] <= now && now < window[1];
}
