import { site } from "../../../app/config/site.ts";
import type { Promised } from "./promise.ts";

/**
 * Every time a person reads, in one format on the company's clock: "Thu, Nov 26, 11:56 PM MST" (the
 * abbreviation of that date). Machines keep ISO UTC (the webhook, `--json`).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
// Each costs some 30 KB: a visitor choosing every zone there is must not fill the memory with them.
const FORMATTERS_KEPT = 256;
/** One formatter per zone and options, made once: making one costs far more than using it. */
export function formatter(
  timeZone: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${timeZone} ${JSON.stringify(options)}`;
  const kept = formatters.get(key);
  if (kept) return kept;
  if (formatters.size >= FORMATTERS_KEPT) formatters.clear();
  const made = new Intl.DateTimeFormat("en-US", { timeZone, ...options });
  formatters.set(key, made);
  return made;
}

// ICU puts narrow and thin spaces before AM/PM and around a range's dash, some versions a no-break
// space: one plain space everywhere, and none at the dash.
const plain = (text: string) => text.replace(/[\u202f\u2009\u00a0]/g, " ").replace(/ ?– ?/g, "–");

const SHORT = {
  weekday: "short",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
} as const;
const WITH_ZONE: Intl.DateTimeFormatOptions = { ...SHORT, timeZoneName: "short" };

export const officeTime = (at: number, timeZone: string = site.timeZone) =>
  plain(formatter(timeZone, WITH_ZONE).format(at));

/** "Tue, Dec 1, 10:30–11:00 AM MST": from `start` to `end` (a booking's), on the clock of `zone`. */
export const sayRange = (start: number, end: number, zone: string) =>
  plain(formatter(zone, WITH_ZONE).formatRange(start, end));

/** "10:30 AM", its zone "MST", and the day's heading "Tuesday, December 1", in `zone`. */
export const sayTime = (at: number, zone: string) =>
  plain(formatter(zone, { hour: "numeric", minute: "2-digit" }).format(at));
export const sayZone = (at: number, zone: string) =>
  formatter(zone, { timeZoneName: "short" })
    .formatToParts(at)
    .find((p) => p.type === "timeZoneName")?.value ?? zone;
export const sayDay = (at: number, zone: string) =>
  formatter(zone, { weekday: "long", month: "long", day: "numeric" }).format(at);

export function replyBy(dueAt: number | null, facts: Promised = site): string | null {
  return dueAt === null
    ? null
    : `Reply by ${officeTime(dueAt, facts.timeZone)} (${facts.response.promiseBusinessHours} business hours)`;
}
