import { site } from "../../../app/config/site.ts";
import { DAY_MS } from "../../time.ts";
import type { Sql } from "../storage/database.ts";
import { leadsReceived, leadTimes } from "../storage/inquiries.ts";
import {
  atRiskAt,
  businessLine,
  type Promised,
  promiseMs,
  sayBusinessTime,
  timingOf,
} from "./promise.ts";

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

/** The windows the digest and /metrics show beside the promise. */
export const PROMISE_WINDOWS = [7, 90] as const;

type Line = { leads: number; inTime: number; atRisk: number; missed: number; waits: number[] };

/**
 * The promise kept over the last `days` days, for all leads and by service line ("General": none
 * chosen): leads (not held), taken within the promise, at risk (the at-risk share passed before
 * anyone took it) and missed; the median business time to "I'm on it" of those taken.
 */
export const promiseByService = (sql: Sql, days: number, now: number, facts: Promised = site) =>
  promiseIn(sql, now - days * DAY_MS, now, now, facts);

/** The same, for the leads received from `since` to `before` (the weekly numbers' weeks), as they stand `now`. */
export async function promiseIn(
  sql: Sql,
  since: number,
  before: number,
  now: number,
  facts: Promised = site,
) {
  const line = businessLine(since, now + 7 * DAY_MS, facts);
  const promise = promiseMs(facts);
  const lines = new Map<string, Line>();
  const add = (key: string) => {
    const known = lines.get(key) ?? { leads: 0, inTime: 0, atRisk: 0, missed: 0, waits: [] };
    lines.set(key, known);
    return known;
  };
  for await (const row of leadsReceived(sql, since, before)) {
    const { receivedAt, takenAt } = row;
    // The "Reply by" fixed at receipt (promise.ts's promiseOf), when it was.
    const fixed = row.hours != null;
    const dueAt = fixed ? row.dueAt : line.deadline(receivedAt, promise);
    const riskAt = atRiskAt(
      {
        receivedAt,
        replyDueAt: dueAt,
        replyHours: fixed ? row.hours : facts.response.promiseBusinessHours,
      },
      facts,
      line,
    );
    const until = takenAt ?? now;
    for (const l of [add("All"), add(row.service || "General")]) {
      l.leads++;
      if (takenAt !== null && (dueAt === null || takenAt <= dueAt)) l.inTime++;
      if (riskAt !== null && until >= riskAt) l.atRisk++;
      if (dueAt !== null && until > dueAt) l.missed++;
      if (takenAt !== null) l.waits.push(line.between(receivedAt, takenAt));
    }
  }
  return [...lines].map(([service, { waits, ...l }]) => {
    waits.sort((a, b) => a - b);
    return { service, ...l, takeMedianMs: waits[Math.ceil(waits.length / 2) - 1] ?? null };
  });
}

export type PromiseLine = Awaited<ReturnType<typeof promiseIn>>[number];

/** The digest's section: the promise over the last 7 and 90 days, all leads then each service line. */
export async function promiseSection(sql: Sql, now: number, facts: Promised = site) {
  const [week, quarter] = await Promise.all(
    PROMISE_WINDOWS.map((days) => promiseByService(sql, days, now, facts)),
  );
  const say = (l: PromiseLine | undefined) =>
    l
      ? `${l.leads} lead${l.leads === 1 ? "" : "s"}, ${l.inTime} taken in time, ${l.atRisk} at risk, ${l.missed} missed${l.takeMedianMs === null ? "" : `, median ${sayBusinessTime(l.takeMedianMs)}`}`
      : "no leads";
  // All leads first, then the service lines in alphabetical order.
  const services = (quarter ?? [])
    .map((l) => l.service)
    .sort((a, b) => Number(b === "All") - Number(a === "All") || a.localeCompare(b));
  return {
    title: `The reply promise (${facts.response.promiseBusinessHours} business hours), last ${PROMISE_WINDOWS[0]} and ${PROMISE_WINDOWS[1]} days (at risk: nobody took it by ${Math.round(facts.response.atRiskShare * 100)}% of the promise; median: business time to the first "I'm on it")`,
    items: services.map((s) => ({
      text: `${s === "All" ? "All leads" : s}: ${PROMISE_WINDOWS[0]} days: ${say(week?.find((l) => l.service === s))}; ${PROMISE_WINDOWS[1]} days: ${say(quarter?.find((l) => l.service === s))}`,
    })),
  };
}
