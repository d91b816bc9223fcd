import type { Logger } from "pino";
import { site } from "../../../app/config/site.ts";
import type { Channel } from "../delivery/channel.ts";
import { destinationsFor, type Routing } from "../delivery/routing.ts";
import type { ContactMetrics } from "../metrics.ts";
import type { Database } from "../storage/database.ts";
import { claimReminder, markReminded, waiting } from "../storage/taken.ts";
import { businessMsBetween, type Promised, promiseDueAt, promiseMs, sayBusinessTime } from "./promise.ts";

/**
 * The reply promise kept (ADR 0020): a lead nobody took ("I'm on it") within the promised business
 * hours goes again, once, by email to its route's recipients and the escalation address, saying how
 * long it has waited. Held ones never remind; possible spam does. Run by housekeeping.ts on every
 * instance each turn; by the database's clock (or the test's): each reminder is claimed by one
 * instance (a compare-and-set on the inquiry) and recorded sent once the relay took it. A claim whose
 * send did not finish (a crash, a relay down) is taken again after CLAIM_MS: at least once, with one
 * Message-ID, as a lead is.
 */

/** How long one instance's claim on a reminder lasts before another may send it. */
export const REMINDER_CLAIM_MS = 5 * 60_000;
/** Leads older than this are not reminded: a reminder is about a lead hours old, not a stale one. */
export const REMINDER_LOOKBACK_MS = 14 * 86_400_000;

export async function sendReminders(parts: {
  db: Database;
  email: Channel | undefined;
  routing: Routing;
  now: number;
  log: Logger;
  metrics?: ContactMetrics;
  facts?: Promised;
}): Promise<number> {
  const { db, email, routing, now, log, metrics, facts = site } = parts;
  if (!email?.remind) return 0;
  // Business time never runs faster than the clock: nothing younger than the promise can be due.
  const candidates = await waiting(db, now - REMINDER_LOOKBACK_MS, now - promiseMs(facts));
  let sent = 0;
  for (const { inquiry, claim } of candidates) {
    const dueAt = promiseDueAt(inquiry.receivedAt, facts);
    if (dueAt === null || dueAt > now) continue;
    // Another instance's claim, still running (one stamped ahead, by a clock that ran ahead, has ended).
    if (claim > 0 && claim <= now && now - claim < REMINDER_CLAIM_MS) continue;
    if (!(await claimReminder(db, inquiry.id, claim, now))) continue;
    const target = destinationsFor(routing, inquiry.service).find((d) => d.channel === "email")?.target ?? null;
    const waited = sayBusinessTime(businessMsBetween(inquiry.receivedAt, now, facts));
    const promise = `${facts.response.promiseBusinessHours} business hours`;
    try {
      const to = await email.remind(inquiry, target, { waited, promise });
      await markReminded(db, inquiry.id, now, now);
      metrics?.reminded();
      sent++;
      log.info({ inquiryId: inquiry.id, to, waited }, "reply promise: reminder sent for a lead nobody took");
    } catch (err) {
      log.error(
        { inquiryId: inquiry.id, err: { message: (err as Error).message } },
        "reply promise: could not send a reminder; tried again later",
      );
    }
  }
  return sent;
}
