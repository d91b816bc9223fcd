import { site } from "../../../app/config/site.ts";
import { escapeHtml } from "../../../app/lib/escape.ts";
import { link } from "../../../app/pages.ts";
import { DAY_MS } from "../../time.ts";
import type { Database, Sql } from "../storage/database.ts";
import { leadsReceived } from "../storage/inquiries.ts";
import { readSetting, writeSetting } from "../storage/settings.ts";
import { businessLine, type Promised, promiseMs, wallClock } from "./promise.ts";

/**
 * The reply promise's public figure (site.response.publicFigure, ADR 0032): of the genuine inquiries
 * of the last `days` days whose answer is known (answered, or past the promise unanswered), the share
 * answered within the promise and the median business time to the first answer. Computed once an
 * office day by one instance and kept in `settings`, so every instance serves the same words; an
 * inquiry held as spam, or erased, is not in it. Percent rounded down, time up: never better than kept.
 */

export type Figure = {
  /** Inquiries whose answer is known: answered, or unanswered past the promise. */
  counted: number;
  inTime: number;
  /** The median business time to the first answer; null when the median one is not answered. */
  medianMs: number | null;
  since: number;
  until: number;
};

export async function computeFigure(
  sql: Sql,
  now: number,
  facts: Promised = site,
): Promise<Figure> {
  const since = now - site.response.publicFigure.days * DAY_MS;
  // Past `now` by a week: a lead's deadline past the line's end is not up yet.
  const line = businessLine(since, now + 7 * DAY_MS, facts);
  const promise = promiseMs(facts);
  const waits: number[] = [];
  let inTime = 0;
  for await (const i of leadsReceived(sql, since, now)) {
    const dueAt = i.hours != null ? i.dueAt : line.deadline(i.receivedAt, promise);
    if (i.takenAt != null && i.takenAt <= now) {
      if (dueAt === null || i.takenAt <= dueAt) inTime++;
      waits.push(line.between(i.receivedAt, i.takenAt));
    } else if (dueAt !== null && now > dueAt) waits.push(Number.POSITIVE_INFINITY);
    // Neither answered nor due yet: its answer is not known, it waits for the next figure.
  }
  // A typed array sorts numbers natively: 100,000 of them in a few milliseconds, not tens.
  const sorted = Float64Array.from(waits).sort();
  // The upper median of an even count: a time one of them waited, the slower of the middle two.
  const median = sorted[Math.floor(sorted.length / 2)];
  return {
    counted: sorted.length,
    inTime,
    medianMs: median === undefined || median === Number.POSITIVE_INFINITY ? null : median,
    since,
    until: now,
  };
}

const [FIGURE, DAY] = ["reply_figure", "reply_figure_day"];

/**
 * Computed by the first instance to reach an office day (the day claimed in one statement, as the
 * digest's is); every instance then reads the stored one.
 */
export async function refreshFigure(db: Database, now: number, facts: Promised = site) {
  const { y, m, d } = wallClock(now, facts.timeZone);
  const day = new Date(Date.UTC(y, m - 1, d)).toISOString().slice(0, 10);
  if (((await readSetting(db, DAY)) ?? "") >= day) return false;
  const figure = await computeFigure(db, now, facts);
  // The claim and the figure in one transaction: an instance that finds the day claimed (after the
  // other's commit, on PostgreSQL) reads the new figure, never the old one.
  return db.transaction(async (tx) => {
    const claimed = await tx.query(
      `INSERT INTO settings (name, value) VALUES (?, ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value WHERE settings.value < excluded.value RETURNING value`,
      [DAY, day],
    );
    if (claimed.length === 0) return false;
    await writeSetting(tx, FIGURE, JSON.stringify(figure));
    return true;
  });
}

export async function storedFigure(sql: Sql): Promise<Figure | null> {
  const value = await readSetting(sql, FIGURE);
  return value ? (JSON.parse(value) as Figure) : null;
}

/** "1 h 5 min", the minutes rounded up. */
function sayWait(ms: number) {
  const minutes = Math.ceil(ms / 60_000);
  const [h, min] = [Math.floor(minutes / 60), minutes % 60];
  return h > 0 ? `${h} h${min > 0 ? ` ${min} min` : ""}` : `${minutes} min`;
}

/** The figure in words, or nothing below the floor: then the promise stands alone. */
export function figureWords(figure: Figure | null, facts: Promised = site): string | null {
  const { floor, days } = site.response.publicFigure;
  if (!figure || figure.counted < floor) return null;
  const percent = Math.floor((100 * figure.inTime) / figure.counted);
  const hours = facts.response.promiseBusinessHours;
  const median =
    figure.medianMs === null
      ? ""
      : ` Half were answered within ${sayWait(figure.medianMs)} of business time.`;
  return `In the last ${days} days we answered ${percent}% of ${figure.counted} inquiries within ${hours} business hours.${median}`;
}

export function figureHtml(figure: Figure | null): string {
  const words = figureWords(figure);
  return words
    ? `<span data-reply-figure="">${escapeHtml(words)} <a href="${link.privacy}#how-we-count-replies">How we count</a></span>`
    : "";
}

/** The figure this instance serves: what housekeeping last read from the database. */
export function figureHolder() {
  let html = "";
  return {
    html: () => html,
    set(figure: Figure | null) {
      html = site.response.publicFigure.show ? figureHtml(figure) : "";
    },
  };
}
export type FigureHolder = ReturnType<typeof figureHolder>;
