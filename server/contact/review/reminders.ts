import { site } from "../../../app/config/site.ts";
import { ACTION_LABEL } from "../../../app/contact/lead.ts";
import type { Booking } from "../../booking/store.ts";
import { DAY_MS, HOUR_MS } from "../../time.ts";
import type { Notice } from "../delivery/channel.ts";
import { SUSPECT_MARK } from "../delivery/email.ts";
import { destinationsFor, type Routing } from "../delivery/routing.ts";
import { timeOrderedId } from "../intake/ids.ts";
import type { Inquiry } from "../storage/records.ts";
import { officeTime } from "./clock.ts";
import {
  atRiskAt,
  businessBefore,
  businessMsBetween,
  nextOpening,
  type Promised,
  promiseDueAt,
  promiseOf,
  replyByOf,
  replyOf,
  sayBusinessTime,
} from "./promise.ts";

/**
 * The reply promise kept (ADR 0020): a lead nobody took within the promise goes again, once, by
 * email; a webhook receiver is told once it was taken and once it was reminded. Each is a delivery
 * of the outbox; a held lead has none, and one two weeks old is stale, not reminded.
 */

export const REMINDER_LOOKBACK_MS = 14 * DAY_MS;

/** The events a webhook receiver hears of a lead after `inquiry.received`, each a delivery of the outbox. */
export type ReportKind =
  | "inquiry.taken"
  | "inquiry.reminded"
  | "booking.requested"
  | "booking.confirmed"
  | "booking.declined"
  | "booking.cancelled";
export type Report = { type: ReportKind; timestamp: string; data: object };

/**
 * The event's deliveries, to the webhook of the lead's route (none without one). A lead event,
 * once per lead, is written when it goes (`reportEvent`, the lead as it is then); an event given
 * here (a booking's change) is kept as it was, its `webhook-id` naming the change's moment.
 */
export function reportOf(
  type: ReportKind,
  inquiry: Inquiry,
  routing: Routing,
  now: number,
  event?: Report,
) {
  const name = `evt_${type.replace(/\W/g, "_")}_${inquiry.id}`;
  return destinationsFor(routing, inquiry.service)
    .filter((d) => d.channel === "webhook")
    .map((d) => ({
      id: timeOrderedId(now),
      kind: type,
      channel: d.channel,
      target: d.target,
      messageId: event ? `${name}_${now}` : name,
      ...(event ? { payload: JSON.stringify(event) } : {}),
    }));
}

export function reminderNow(
  i: Inquiry,
  now: number,
  facts: Promised = site,
): "drop" | { at: number } | { waited: string; promise: string } {
  const { dueAt, hours } = promiseOf(i, facts);
  // A held message has no reminder to drop: none is queued for it, and the outbox claims nothing of it.
  if (i.takenAt != null || dueAt === null || now - i.receivedAt > REMINDER_LOOKBACK_MS)
    return "drop";
  if (dueAt > now) return { at: dueAt };
  return {
    // Its promise, then the business time since it ran out: the hours it was promised in may differ from today's.
    waited: sayBusinessTime(hours * HOUR_MS + businessMsBetween(dueAt, now, facts)),
    promise: `${hours} business hours`,
  };
}

/** A consultation request as its reminder was queued: when it was asked, and for when. */
export type AskedRequest = { askedAt: number; startsAt: number };

/**
 * The reminder of a consultation request nobody answered (a time asked for, or a confirmed call's
 * move to another): due once the reply promise has passed since it was asked, or once less than the booking notice (business time) is left before its time,
 * whichever comes first: both counted in business time, as an untaken lead's. Dropped once the request was answered,
 * cancelled or replaced by a newer pick (which has its own), or is two weeks old.
 */
export function requestReminderNow(
  b: Pick<Booking, "state" | "changedAt" | "move"> | null,
  asked: AskedRequest,
  now: number,
  facts: Promised = site,
  noticeHours = site.booking.noticeBusinessHours,
): "drop" | { at: number } | { why: string } {
  // Still unanswered: the request as it was asked, or a confirmed call's move to that time, waiting.
  const waits =
    b?.state === "asked"
      ? b.changedAt === asked.askedAt
      : b?.state === "confirmed" && b.move?.startsAt === asked.startsAt;
  if (!waits || now - asked.askedAt > REMINDER_LOOKBACK_MS) return "drop";
  const promised = promiseDueAt(asked.askedAt, facts);
  const near = businessBefore(asked.startsAt, noticeHours * HOUR_MS, facts);
  const first = Math.min(promised ?? Number.POSITIVE_INFINITY, near ?? Number.POSITIVE_INFINITY);
  if (first === Number.POSITIVE_INFINITY) return "drop";
  if (first > now) return { at: first };
  return {
    why:
      first === near
        ? `Its time is less than ${noticeHours} business hours away, and nobody has confirmed or declined it.`
        : `Nobody has confirmed or declined it for ${sayBusinessTime(businessMsBetween(asked.askedAt, now, facts))} of business time; we promise a reply within ${facts.response.promiseBusinessHours} business hours.`,
  };
}

/**
 * The at-risk warning (site.response.atRiskShare): due when that share of the promise has passed,
 * the office open; never for a lead taken (or erased: its deliveries go with it; held: the outbox
 * claims none of its), nor once the promise is up, which the reminder says.
 */
export function atRiskNow(
  i: Inquiry,
  now: number,
  facts: Promised = site,
): "drop" | { at: number } | { left: number; dueAt: number } {
  const [at, dueAt] = [atRiskAt(i, facts), promiseOf(i, facts).dueAt];
  if (i.takenAt != null || at === null || dueAt === null || now >= dueAt) return "drop";
  // Sent late (the server was down at the time), it still waits for the office to be open.
  const open = nextOpening(Math.max(at, now), facts) ?? at;
  if (open > now) return { at: open };
  return { left: businessMsBetween(now, dueAt, facts), dueAt };
}

/** The warning's words: one short message, the time left on the office clock and the "I'm on it" link. */
export function atRiskNotice(
  i: Inquiry,
  risk: { left: number; dueAt: number },
  take: string | undefined,
  to: string,
  facts: Promised = site,
): Notice {
  const who = i.company ? `${i.name} (${i.company})` : i.name;
  const left = sayBusinessTime(risk.left);
  return {
    subject: `At risk, ${left} left: ${i.suspect ? `${SUSPECT_MARK} ` : ""}${i.service || "General"} — ${who}`,
    text: [
      // The lead's own promise, as its email said it (fixed when it came), not today's setting.
      `Nobody has pressed "${ACTION_LABEL.take}" for this lead yet: ${left} of business time is left of the ${promiseOf(i, facts).hours} business hours we promised this visitor.`,
      `${replyByOf(i, facts)}.`,
      `${who}, ${i.service || "General"}, received ${officeTime(i.receivedAt, facts.timeZone)} (inquiry ${i.id}).`,
      ...(take
        ? [`If you are answering it, press "${ACTION_LABEL.take}" so the others know:`, take]
        : []),
    ].join("\n"),
    inquiryIds: [i.id],
    to,
  };
}

/** What a report delivery sends: the event kept when it was queued, else the lead's as it is `now`. */
export const reportEvent = (
  type: string,
  i: Inquiry,
  now: number,
  facts: Promised = site,
  kept: string | null = null,
): { type: string; timestamp: string; data: object } =>
  kept
    ? (JSON.parse(kept) as Report)
    : {
        type,
        timestamp: new Date(
          (type === "inquiry.taken" ? i.takenAt : i.remindedAt) ?? now,
        ).toISOString(),
        data: { id: i.id, reply: replyOf(i, now, facts) },
      };
