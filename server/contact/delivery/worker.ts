import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { unansweredNotice } from "../../booking/messages.ts";
import type { Config, Tuning } from "../../config.ts";
import type { ContactMetrics } from "../metrics.ts";
import { digestWords } from "../review/digest.ts";
import type { LeadLinks } from "../review/links.ts";
import type { Promised } from "../review/promise.ts";
import {
  atRiskNotice,
  atRiskNow,
  reminderNow,
  reportEvent,
  reportOf,
} from "../review/reminders.ts";
import { weeklyNumbersWords } from "../review/weekly.ts";
import { type Database, StorageUnavailableError } from "../storage/database.ts";
import { recordReminded } from "../storage/inquiries.ts";
import * as outbox from "../storage/outbox.ts";
import type { Delivery, DeliveryKind, NewDelivery } from "../storage/records.ts";
import { ALERT_KINDS, type AlertKind, type Attempt, type Channel, cutAt } from "./channel.ts";
import { destinationsFor, type Routing } from "./routing.ts";

/**
 * Sends the outbox (docs/decisions/0004, 0024), at least once: a duplicate carries the same id. A
 * lead goes where its service's leads go when it is sent, so a corrected route reaches the leads
 * still waiting. Each delivery finishes on its own, its claim extended while the send lasts: one
 * slow receiver never holds the others.
 */

const MAX_IN_HAND = 16;

// What the log says of each kind: sent, and could not send (then "; tried again later" or ": failed for good").
const toWebhook = (event: string, about = "reply promise"): [string, string] => [
  `${about}: ${event} sent to the webhook`,
  `${about}: could not send ${event} to the webhook`,
];
const SAID: Record<DeliveryKind, [string, string]> = {
  lead: ["inquiry delivered", "inquiry delivery failed"],
  reminder: [
    "reply promise: reminder sent for a lead nobody took",
    "reply promise: could not send a reminder",
  ],
  "at-risk": [
    "reply promise: at-risk warning sent for a lead nobody took",
    "reply promise: could not send an at-risk warning",
  ],
  "inquiry.taken": toWebhook("inquiry.taken"),
  "inquiry.reminded": toWebhook("inquiry.reminded"),
  "booking.requested": toWebhook("booking.requested", "booking"),
  "booking.confirmed": toWebhook("booking.confirmed", "booking"),
  "booking.declined": toWebhook("booking.declined", "booking"),
  "booking.cancelled": toWebhook("booking.cancelled", "booking"),
  "delivery-failed": ["delivery failure reported", "could not report a delivery failure"],
  digest: ["morning digest sent", "could not send the morning digest"],
  "weekly-numbers": ["weekly numbers sent", "could not send the weekly numbers"],
  booking: ["booking message sent", "could not send a booking message"],
  "booking-visitor": ["booking message sent to the visitor", "could not send a booking message"],
  "booking-unanswered": [
    "booking: reminder sent for a request nobody answered",
    "booking: could not send the reminder of a request nobody answered",
  ],
  "calendar-unread": ["unread calendar reported", "could not report an unread calendar"],
};

type Outcome = Attempt | "drop" | { at: number };

export type OutboxWorker = ReturnType<typeof outboxWorker>;

export function outboxWorker(parts: {
  db: Database;
  channels: Channel[];
  routing: Routing;
  log: Logger;
  // SITE_URL: the digest's Confirm and Decline links.
  config: Tuning & Pick<Config, "SITE_URL">;
  metrics?: ContactMetrics;
  clock?: () => number;
  facts?: Promised;
  links: LeadLinks;
}) {
  const { db, metrics, config } = parts;
  const id = `worker-${randomUUID()}`;
  const channels = new Map(parts.channels.map((c) => [c.name, c]));
  const workerLog = parts.log.child({ worker: id });
  const clock = parts.clock ?? Date.now;
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let wake: (() => void) | null = null;
  let loop: Promise<void> | null = null;

  const nudge = () => wake?.();
  async function settled(): Promise<void> {
    while (inFlight.size > 0) await Promise.all(inFlight);
  }

  async function run(): Promise<void> {
    while (running) {
      // An outage was logged once by the database's watcher; the next poll tries again.
      const worked = await pass().catch((err: Error) => {
        if (!(err instanceof StorageUnavailableError))
          workerLog.error({ err }, "outbox pass failed");
        return 0;
      });
      if (worked > 0 || !running) continue;
      const woken = new AbortController();
      wake = () => woken.abort();
      await sleep(config.OUTBOX_POLL_MS, null, { signal: woken.signal }).catch(() => undefined);
      wake = null;
    }
  }

  async function pass(now = clock()): Promise<number> {
    const room = MAX_IN_HAND - inFlight.size;
    if (room <= 0) return 0;
    const claimant = {
      workerId: id,
      channels: [...channels.keys()],
      leaseMs: config.OUTBOX_LEASE_MS,
    };
    const due = await outbox.claimDue(db, claimant, now, room);
    for (const delivery of due) {
      const made: Promise<void> = deliver(delivery as Delivery)
        .catch((err: Error) => workerLog.error({ err }, "delivery not recorded"))
        .finally(() => {
          inFlight.delete(made);
          nudge();
        });
      inFlight.add(made);
    }
    return due.length;
  }

  async function attempt(d: Delivery, now: number): Promise<Outcome> {
    // Claimed only for this worker's channels (outbox.claimDue).
    const channel = channels.get(d.channel) as Channel;
    if (d.kind === "booking-unanswered") {
      const notice = await unansweredNotice(
        db,
        d.inquiryId ?? "",
        d.payload ?? "{}",
        now,
        parts.facts,
      );
      return notice === "drop" || "at" in notice
        ? notice
        : channel.notify(d.kind, notice, d.messageId);
    }
    if ((ALERT_KINDS as readonly string[]).includes(d.kind)) {
      const payload = d.payload ?? "{}";
      const words =
        d.kind === "digest"
          ? await digestWords(db, parts, payload, now, parts.facts)
          : d.kind === "weekly-numbers"
            ? await weeklyNumbersWords(db, payload, now, parts.facts)
            : JSON.parse(payload);
      return words ? channel.notify(d.kind as AlertKind, words, d.messageId) : "drop";
    }
    const { inquiry } = d;
    if (!inquiry) return "drop";
    const target = destinationsFor(parts.routing, inquiry.service).find(
      (x) => x.channel === d.channel,
    )?.target;
    if (d.kind === "lead") {
      if (!target)
        return {
          kind: "permanent",
          reason: `this service's leads no longer go to ${d.channel} on this server`,
        };
      d.target = target;
      return channel.deliver({ ...d, inquiry, target });
    }
    if (!target) return "drop";
    if (d.kind === "reminder") {
      const reminder = reminderNow(inquiry, now, parts.facts);
      if (reminder === "drop" || "at" in reminder) return reminder;
      return channel.deliver({ ...d, inquiry, target }, reminder);
    }
    if (d.kind === "at-risk") {
      const risk = atRiskNow(inquiry, now, parts.facts);
      if (risk === "drop" || "at" in risk) return risk;
      const take = parts.links.for(inquiry, now).find((l) => l.action === "take")?.url;
      return channel.notify(
        "at-risk",
        atRiskNotice(inquiry, risk, take, target, parts.facts),
        d.messageId,
      );
    }
    return (
      channel.report?.(
        target,
        reportEvent(d.kind, inquiry, now, parts.facts, d.payload),
        d.messageId,
      ) ?? "drop"
    );
  }

  async function deliver(d: Delivery): Promise<void> {
    const kind = d.kind as DeliveryKind;
    const log = workerLog.child({
      inquiryId: d.inquiryId ?? undefined,
      channel: d.channel,
      attempt: d.attempts,
    });
    const lease = config.OUTBOX_LEASE_MS;
    const hold = setInterval(
      () => outbox.extendClaim(db, d.id, id, clock() + lease).catch(() => undefined),
      lease / 3,
    );
    const outcome = await attempt(d, clock()).catch(
      (err: Error): Outcome => ({ kind: "retry", reason: err.message }),
    );
    clearInterval(hold);
    const now = clock();
    if (outcome === "drop") return outbox.drop(db, d.id, id);
    if ("at" in outcome) return outbox.postpone(db, d.id, id, outcome.at);
    const see = `see \`npm run inquiries -- show ${d.inquiryId}\``;
    if (outcome.kind === "delivered") {
      const recorded = await outbox.recordSent(db, d.id, id, now, d.target);
      if (kind === "lead" && d.inquiry) {
        metrics?.delivered(d.channel, (now - d.inquiry.receivedAt) / 1000);
        const via = channels.get(d.channel)?.describe();
        log.info({ via, to: d.target, detail: outcome.detail, marked: recorded }, SAID.lead[0]);
      } else log.info({ to: outcome.detail ?? d.target }, SAID[kind][0]);
      if (kind === "reminder" && d.inquiry && recorded) {
        await recordReminded(
          db,
          d.inquiry.id,
          now,
          reportOf("inquiry.reminded", d.inquiry, parts.routing, now),
        );
        metrics?.reminded();
        nudge();
      }
      // Sent, never again: those who took it have it; those who refused it for good are named once.
      if (outcome.refused && kind === "lead") {
        const reason = `refused by ${outcome.refused.join(", ")}: ${outcome.detail}`;
        log.fatal(
          { reason },
          `INQUIRY ${d.channel.toUpperCase()} REFUSED BY SOME RECIPIENTS; ${see}`,
        );
        await alert(d, reason, "refused", now);
      }
      return;
    }
    // What a receiver said can be a whole page: the log, the alert and the stored error keep its start.
    const reason = cutAt(outcome.reason, 1000, "…");
    // Not recorded: held while under way (cancelled, nobody alerted), or the claim went to another worker.
    const cancelled = async () => {
      if (await outbox.cancelHeld(db, d.id, id))
        log.info(
          { reason },
          "inquiry delivery cancelled: marked spam while under way, not tried again",
        );
    };
    if (outcome.kind === "permanent" || now - d.createdAt >= config.OUTBOX_GIVE_UP_AFTER_MS) {
      if (!(await outbox.fail(db, d.id, id, reason))) return cancelled();
      metrics?.failed(d.channel);
      if (kind !== "lead") return log.error({ reason, kind }, `${SAID[kind][1]}: failed for good`);
      // Fatal on purpose: a person must look at this inquiry (`inquiries -- retry` after a fix).
      const permanent = outcome.kind === "permanent";
      log.fatal(
        { reason, permanent },
        `INQUIRY ${d.channel.toUpperCase()} DELIVERY FAILED PERMANENTLY; ${see}`,
      );
      return alert(d, reason, "failed", now);
    }
    // Equal jitter: between half and all of the exponential delay, so many retries spread out.
    const exponential = Math.min(
      config.OUTBOX_RETRY_MAX_MS,
      config.OUTBOX_RETRY_BASE_MS * 2 ** (d.attempts - 1),
    );
    const delay = Math.max(
      Math.round(exponential / 2 + (Math.random() * exponential) / 2),
      outcome.retryAfterMs ?? 0,
    );
    if (!(await outbox.retryAt(db, d.id, id, now + delay, reason))) return cancelled();
    metrics?.retried(d.channel);
    log.warn(
      { reason, retryInMs: delay },
      `${SAID[kind][1]}; ${kind === "lead" ? "will retry" : "tried again later"}`,
    );
  }

  async function alert(d: Delivery, reason: string, why: string, now: number): Promise<void> {
    const i = d.inquiry;
    const subject = `Lead delivery failed: ${d.channel} for inquiry ${d.inquiryId}`;
    const text = [
      `The ${d.channel} delivery of inquiry ${d.inquiryId} (from ${i?.name}, received ${new Date(i?.receivedAt ?? now).toISOString()}) failed permanently: ${reason}`,
      `See it with \`npm run inquiries -- show ${d.inquiryId}\`; after a fix, \`npm run inquiries -- retry --channel ${d.channel}\`.`,
    ].join("\n");
    const payload = JSON.stringify({ subject, text, inquiryIds: [d.inquiryId] });
    const each = {
      kind: "delivery-failed",
      target: "default",
      messageId: `alert_${d.id}_${why}`,
      payload,
    } as const;
    const alerts = [...channels.keys()]
      .filter((c) => c !== d.channel)
      .map((channel): NewDelivery => ({ ...each, id: `${d.id}-${why}-${channel}`, channel }));
    await db.transaction((tx) => outbox.queue(tx, d.inquiryId, alerts, now));
    nudge();
  }

  return {
    id,
    nudge,
    pass,
    settled,
    start(): void {
      if (running) return;
      running = true;
      loop = run();
    },
    async stop(graceMs = 10_000): Promise<void> {
      if (!running) return;
      running = false;
      nudge();
      await Promise.race([loop?.then(settled), sleep(graceMs, undefined, { ref: false })]);
      const given = await outbox.giveBack(db, id).catch(() => 0);
      if (given > 0) workerLog.info({ given }, "gave back claimed deliveries");
    },
  };
}
