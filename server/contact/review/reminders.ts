import type { Logger } from "pino";
import { site } from "../../../app/config/site.ts";
import type { Channel } from "../delivery/channel.ts";
import { destinationsFor, type Routing } from "../delivery/routing.ts";
import type { ContactMetrics } from "../metrics.ts";
import type { Database } from "../storage/database.ts";
import type { Inquiry } from "../storage/records.ts";
import { claim, due, markDone, type ReplyJob } from "../storage/taken.ts";
import { businessMsBetween, type Promised, promiseDueAt, promiseMs, replyOf, sayBusinessTime } from "./promise.ts";

/**
 * The reply promise kept (ADR 0020): a lead nobody took ("I'm on it") within the promised business
 * hours goes again, once, by email to its route's recipients and the escalation address, saying how
 * long it has waited; held ones never remind, possible spam does. And a webhook receiver (a CRM) is
 * told once that a lead was taken and once that it was reminded (`inquiry.taken`, `inquiry.reminded`).
 * Run by housekeeping.ts on every instance each turn, by the database's clock (or the test's): each
 * job on an inquiry is claimed by one instance (a compare-and-set on its row) and recorded done once
 * it went. A claim whose job did not finish (a crash, a relay or receiver down) is taken again after
 * REMINDER_CLAIM_MS: at least once, with one Message-ID or webhook-id, as a lead is.
 */

/** Each job's log lines: done, and failed (then tried again after the claim). */
const SAID: Record<ReplyJob, [string, string]> = {
  reminder: [
    "reply promise: reminder sent for a lead nobody took",
    "reply promise: could not send a reminder; tried again later",
  ],
  taken_report: [
    "reply promise: inquiry.taken sent to the webhook",
    "reply promise: could not send inquiry.taken to the webhook; tried again later",
  ],
  reminded_report: [
    "reply promise: inquiry.reminded sent to the webhook",
    "reply promise: could not send inquiry.reminded to the webhook; tried again later",
  ],
};

/** How long one instance's claim on a job lasts before another may do it. */
export const REMINDER_CLAIM_MS = 5 * 60_000;
/** Leads older than this are not reminded or reported: a reminder is about a lead hours old, not a stale one. */
export const REMINDER_LOOKBACK_MS = 14 * 86_400_000;

type Parts = {
  db: Database;
  /** The email channel (the reminder) and the webhook channel (the reports), where configured. */
  email: Channel | undefined;
  webhook: Channel | undefined;
  routing: Routing;
  now: number;
  log: Logger;
  metrics?: ContactMetrics;
  facts?: Promised;
};

/**
 * Do `job` for each inquiry received between `since` and `until` it is due for, that `ready` says is
 * ready, once across instances: claimed, done by `act`, recorded. How many were done.
 */
async function once(
  p: Parts,
  job: ReplyJob,
  [since, until]: [number, number],
  ready: (i: Inquiry) => boolean,
  /** What it did, for the log line; null: nothing to do (recorded all the same, no line). */
  act: (i: Inquiry) => Promise<Record<string, unknown> | null>,
): Promise<number> {
  const { db, now, log } = p;
  let done = 0;
  for (const { inquiry, claim: seen } of await due(db, job, since, until)) {
    if (!ready(inquiry)) continue;
    // Another instance's claim, still running (one stamped ahead, by a clock that ran ahead, has ended).
    if (seen > 0 && seen <= now && now - seen < REMINDER_CLAIM_MS) continue;
    if (!(await claim(db, job, inquiry.id, seen, now))) continue;
    try {
      const said = await act(inquiry);
      await markDone(db, job, inquiry.id, now, now);
      if (said === null) continue;
      done++;
      log.info({ inquiryId: inquiry.id, ...said }, SAID[job][0]);
    } catch (err) {
      log.error({ inquiryId: inquiry.id, err: { message: (err as Error).message } }, SAID[job][1]);
    }
  }
  return done;
}

/** The reminders due now (email); how many went. */
export function sendReminders(p: Parts): Promise<number> {
  const { email, routing, now, metrics, facts = site } = p;
  const remind = email?.remind?.bind(email);
  if (!remind) return Promise.resolve(0);
  // Business time never runs faster than the clock: nothing younger than the promise can be due.
  const window: [number, number] = [now - REMINDER_LOOKBACK_MS, now - promiseMs(facts)];
  return once(
    p,
    "reminder",
    window,
    (i) => {
      const dueAt = promiseDueAt(i.receivedAt, facts);
      return dueAt !== null && dueAt <= now;
    },
    async (i) => {
      const target = destinationsFor(routing, i.service).find((d) => d.channel === "email")?.target ?? null;
      const waited = sayBusinessTime(businessMsBetween(i.receivedAt, now, facts));
      const to = await remind(i, target, { waited, promise: `${facts.response.promiseBusinessHours} business hours` });
      metrics?.reminded();
      return { to, waited };
    },
  );
}

/** The webhook's reports due now (`inquiry.taken`, `inquiry.reminded`); a lead whose route has no webhook has nothing to report. */
export async function sendReplyReports(p: Parts): Promise<number> {
  const { webhook, routing, now, facts = site } = p;
  const window: [number, number] = [now - REMINDER_LOOKBACK_MS, now];
  let sent = 0;
  for (const [job, type] of [
    ["taken_report", "inquiry.taken"],
    ["reminded_report", "inquiry.reminded"],
  ] as const) {
    sent += await once(
      p,
      job,
      window,
      () => true,
      async (i) => {
        const target = destinationsFor(routing, i.service).find((d) => d.channel === "webhook")?.target;
        if (!target || !webhook?.report) return null;
        const at = job === "taken_report" ? i.takenAt : i.remindedAt;
        const { refused } = await webhook.report(i, target, {
          type,
          timestamp: new Date(at ?? now).toISOString(),
          data: { id: i.id, reply: replyOf(i, now, facts) },
        });
        return refused ? { to: target, refused } : { to: target };
      },
    );
  }
  return sent;
}
