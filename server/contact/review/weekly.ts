import { serviceOptions } from "../../../app/config/service-options.ts";
import { site } from "../../../app/config/site.ts";
import { ACTION_LABEL } from "../../../app/contact/lead.ts";
import { timeOrderedId } from "../intake/ids.ts";
import type { Database, Sql } from "../storage/database.ts";
import { queue } from "../storage/outbox.ts";
import { officeTime, sayDay } from "./clock.ts";
import { openingOf } from "./digest.ts";
import { instantOn, type Promised } from "./promise.ts";
import { promiseIn } from "./reply-figures.ts";

/**
 * The weekly numbers, for the company's people who want the figures without the leads
 * (WEEKLY_FIGURES_TO): at the week's first opening, once however many instances run (the week is
 * claimed in one statement, `weekly_numbers_week`, as the digest claims its day). Counts only: no name,
 * address, company or message is written into them.
 */

/** The weeks the numbers cover, the last one ending as the week of sending begins. */
export const FIGURES_WEEKS = 4;
// promiseIn's lines: all leads, and those with no service chosen.
const [ALL, NONE] = ["All", "General"];

/** The Monday (its date, on the office's calendar) of the week `day` (YYYY-MM-DD) is in. */
function mondayOf(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  // getUTCDay counts from Sunday; the office's week starts on Monday.
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  return date.toISOString().slice(0, 10);
}

/** The instant the office's midnight starts the day `weeks` weeks from the Monday `monday`. */
function midnightOf(monday: string, weeks: number, zone: string): number {
  const [y = 0, m = 1, d = 1] = monday.split("-").map(Number);
  return instantOn(zone, y, m - 1, d + 7 * weeks, 0, 0);
}

export async function queueWeeklyNumbers(
  db: Database,
  now: number,
  to: string | undefined,
  facts: Promised = site,
): Promise<boolean> {
  if (!to) return false;
  const opening = openingOf(now, facts);
  if (!opening || now < opening.at) return false;
  const week = mondayOf(opening.day);
  return db.transaction(async (tx) => {
    // As the digest's day (digest.ts): the first instance's; weeks only move forward.
    const claimed = await tx.query(
      `INSERT INTO settings (name, value) VALUES ('weekly_numbers_week', ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value WHERE settings.value < excluded.value RETURNING value`,
      [week],
    );
    if (claimed.length === 0) return false;
    const numbers = {
      id: timeOrderedId(now),
      kind: "weekly-numbers" as const,
      channel: "email",
      target: "default",
      messageId: `weekly-numbers-${week}`,
      // Its addresses as this instance has them: whichever instance sends it sends it there.
      payload: JSON.stringify({ week, to }),
    };
    await queue(tx, null, [numbers], now);
    return true;
  });
}

/** The words of the weekly numbers, counted when they are sent. */
export async function weeklyNumbersWords(
  sql: Sql,
  payload: string,
  now: number,
  facts: Promised = site,
) {
  const { week, to } = JSON.parse(payload) as { week: string; to: string };
  const zone = facts.timeZone;
  const weeks = Array.from({ length: FIGURES_WEEKS }, (_, k) => {
    const from = midnightOf(week, k - FIGURES_WEEKS, zone);
    return { from, until: midnightOf(week, k - FIGURES_WEEKS + 1, zone) };
  });
  // The promise counted as the digest and /metrics count it (reply-figures.ts), week by week.
  const counted = await Promise.all(
    weeks.map(async ({ from, until }) => {
      const lines = await promiseIn(sql, from, until, now, facts);
      const all = lines.find((l) => l.service === ALL);
      return { from, total: all?.leads ?? 0, inTime: all?.inTime ?? 0, lines };
    }),
  );
  // Every service offered, then any other a lead names (one no longer offered), then none chosen.
  const named = new Set(counted.flatMap((w) => w.lines.map((l) => l.service)));
  const services = [
    ...serviceOptions,
    ...[...named].filter(
      (s) => s !== ALL && s !== NONE && !(serviceOptions as readonly string[]).includes(s),
    ),
    NONE,
  ];
  const promise = `${facts.response.promiseBusinessHours} business hours`;
  const plural = (n: number) => `${n} inquir${n === 1 ? "y" : "ies"}`;
  const last = counted.at(-1);
  const text = [
    `The ${site.name} website's inquiries, week by week (Monday to Sunday, office time), ${officeTime(now, zone)}.`,
    "Counts only: no name, address or message is in this email. Messages held as spam are not counted.",
    "",
    ...counted.flatMap((w) => [
      `Week of ${sayDay(w.from, zone)}: ${plural(w.total)}, ${w.inTime} taken within the promise (${promise})`,
      ...services.map((s) => {
        const line = w.lines.find((l) => l.service === s);
        return `- ${s === NONE ? "No service chosen" : s}: ${line?.leads ?? 0}${line ? ` (${line.inTime} within the promise)` : ""}`;
      }),
      "",
    ]),
    `"Taken within the promise": someone pressed "${ACTION_LABEL.take}" within ${promise} of the inquiry.`,
  ].join("\n");
  return {
    subject: `Weekly numbers, week of ${sayDay(last?.from ?? now, zone)}: ${plural(last?.total ?? 0)}, ${last?.inTime ?? 0} taken within the promise`,
    text,
    inquiryIds: [],
    to,
  };
}
