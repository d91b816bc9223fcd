import type { Sql } from "../storage/database.ts";
import { leadTimes } from "../storage/inquiries.ts";
import { type Promised, timingOf } from "./promise.ts";

// How the reply promise is kept, in business time: one computation for /metrics and the CLI (ADR 0020).
export async function replyFigures(sql: Sql, since: number, now: number, facts?: Promised) {
  const leads = await leadTimes(sql, since);
  const timings = leads.map((i) => ({ i, t: timingOf(i, now, facts) }));
  const takes = timings
    .flatMap(({ t }) => (t.takeBusinessMs === null ? [] : [t.takeBusinessMs]))
    .sort((a, b) => a - b);
  const quantile = (q: number) => takes[Math.ceil(q * takes.length) - 1] ?? null;
  const waiting = timings.filter(({ i }) => i.takenAt == null);
  return {
    leads: leads.length,
    taken: takes.length,
    waiting: waiting.length,
    overdue: waiting.filter(({ t }) => t.missed).length,
    missed: timings.filter(({ t }) => t.missed).length,
    reminded: leads.filter((i) => (i.remindedAt ?? 0) > 0).length,
    takeMedianMs: quantile(0.5),
    takeP90Ms: quantile(0.9),
  };
}

export type ReplyFigures = Awaited<ReturnType<typeof replyFigures>>;
