import { site } from "../../../app/config/site.ts";
import type { Promised } from "./promise.ts";

/**
 * Every time a person reads (emails, Slack, the lead page, the digest, the CLI's tables) in one
 * format, on the company's clock: "Thu, Nov 26, 11:56 PM MST", with the abbreviation of that date
 * (MST in winter, MDT in summer). Machines keep ISO UTC (the webhook, `--json`).
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

export function officeTime(at: number, timeZone: string = site.timeZone): string {
  const f =
    formatters.get(timeZone) ??
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "short",
      month: "short",
      day: "numeric",
      hour: "numeric",
      minute: "2-digit",
      timeZoneName: "short",
    });
  formatters.set(timeZone, f);
  // Some ICU versions put a narrow no-break space before AM/PM: one plain space everywhere.
  return f.format(at).replace(/[\u202f\u00a0]/g, " ");
}

export function replyBy(dueAt: number | null, facts: Promised = site): string | null {
  return dueAt === null
    ? null
    : `Reply by ${officeTime(dueAt, facts.timeZone)} (${facts.response.promiseBusinessHours} business hours)`;
}
