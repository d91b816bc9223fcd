import { site } from "../../../app/config/site.ts";
import type { Promised } from "./promise.ts";

/**
 * Every time a person reads, in one format on the company's clock: "Thu, Nov 26, 11:56 PM MST" (the
 * abbreviation of that date). Machines keep ISO UTC (the webhook, `--json`).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
/** One formatter per zone and options, made once: making one costs far more than using it. */
export function formatter(timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${timeZone} ${JSON.stringify(options)}`;
  const made = formatters.get(key) ?? new Intl.DateTimeFormat("en-US", { timeZone, ...options });
  formatters.set(key, made);
  return made;
}

const SHORT = { weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" } as const;
const OFFICE_TIME: Intl.DateTimeFormatOptions = { ...SHORT, timeZoneName: "short" };

export function officeTime(at: number, timeZone: string = site.timeZone): string {
  const f = formatter(timeZone, OFFICE_TIME);
  // Some ICU versions put a narrow no-break space before AM/PM: one plain space everywhere.
  return f.format(at).replace(/[\u202f\u00a0]/g, " ");
}

export function replyBy(dueAt: number | null, facts: Promised = site): string | null {
  return dueAt === null
    ? null
    : `Reply by ${officeTime(dueAt, facts.timeZone)} (${facts.response.promiseBusinessHours} business hours)`;
}
