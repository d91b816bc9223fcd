import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Tuning } from "../../config.ts";
import type { ContactMetrics } from "../metrics.ts";
import { digestWords } from "../review/digest.ts";
import type { LeadLinks } from "../review/links.ts";
import type { Promised } from "../review/promise.ts";
import { reminderNow, reportEvent, reportOf } from "../review/reminders.ts";
import { type Database, StorageUnavailableError } from "../storage/database.ts";
import { recordReminded } from "../storage/inquiries.ts";
import * as outbox from "../storage/outbox.ts";
import type { Delivery, DeliveryKind, NewDelivery } from "../storage/records.ts";
import type { AlertKind, Attempt, Channel } from "./channel.ts";
import { destinationsFor, type Routing } from "./routing.ts";

/**
 * Sends the outbox (docs/decisions/0004, 0024): claims what is due, hands each delivery to its
 * channel, records it sent, or retries it with backoff until the give-up window ends; a lead that
 * fails for good is logged at `fatal` and the other channels are alerted. At least once: a duplicate
 * carries the same id. A lead goes where its service's leads go when it is sent, so a corrected
 * route reaches the leads still waiting. Each delivery finishes on its own: one slow receiver never
 * holds the others, and its claim is extended while the send lasts.
 */

export const OUTBOX_POLL_MS = 1_000;
export const OUTBOX_RETRY_BASE_MS = 30_000;
export const OUTBOX_RETRY_MAX_MS = 60 * 60_000;
export const OUTBOX_GIVE_UP_AFTER_MS = 24 * 60 * 60_000;
export const OUTBOX_LEASE_MS = 2 * 60_000;
const MAX_IN_HAND = 16;

const SAID: Record<DeliveryKind, [string, string]> = {
  lead: ["inquiry delivered", "inquiry delivery failed; will retry"],
  reminder: [
    "reply promise: reminder sent for a lead nobody took",
    "reply promise: could not send a reminder; tried again later",
  ],
  "inquiry.taken": [
    "reply promise: inquiry.taken sent to the webhook",
    "reply promise: could not send inquiry.taken to the webhook; tried again later",
  ],
  "inquiry.reminded": [
    "reply promise: inquiry.reminded sent to the webhook",
    "reply promise: could not send inquiry.reminded to the webhook; tried again later",
  ],
  "delivery-failed": ["delivery failure reported", "could not report a delivery failure; tried again later"],
  digest: ["morning digest sent", "could not send the morning digest; tried again later"],
  booking: ["booking or calendar message sent", "could not send a booking or calendar message; tried again later"],
  "booking-visitor": ["booking message sent to the visitor", "could not send a booking message; tried again later"],
};

type Outcome = Attempt | "drop" | { at: number };

export class OutboxWorker {
  readonly id = `worker-${randomUUID()}`;
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly channels: Map<string, Channel>;
  private readonly log: Logger;
  private readonly now: () => number;

  private readonly parts: {
    db: Database;
    channels: Channel[];
    routing: Routing;
    log: Logger;
    config: Tuning;
    metrics?: ContactMetrics;
    clock?: () => number;
    facts?: Promised;
    links?: LeadLinks;
  };

  constructor(parts: OutboxWorker["parts"]) {
    this.parts = parts;
    this.channels = new Map(parts.channels.map((c) => [c.name, c]));
    this.log = parts.log.child({ worker: this.id });
    this.now = parts.clock ?? Date.now;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  nudge(): void {
    this.wake?.();
  }

  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    const done = this.loop?.then(() => this.settled());
    await Promise.race([done, new Promise((r) => setTimeout(r, graceMs).unref())]);
    const given = await outbox.giveBack(this.parts.db, this.id).catch(() => 0);
    if (given > 0) this.log.info({ given }, "gave back claimed deliveries");
  }

  private async run(): Promise<void> {
    while (this.running) {
      const worked = await this.pass().catch((err: Error) => {
        // An outage was logged once by the database's watcher.
        if (!(err instanceof StorageUnavailableError))
          this.log.error({ err: { message: err.message } }, "outbox pass failed");
        return 0;
      });
      if (worked > 0 || !this.running) continue;
      const woken = new AbortController();
      this.wake = () => woken.abort();
      await sleep(this.parts.config.OUTBOX_POLL_MS, null, { signal: woken.signal }).catch(() => undefined);
      this.wake = null;
    }
  }

  async pass(now = this.now()): Promise<number> {
    const room = MAX_IN_HAND - this.inFlight.size;
    if (room <= 0) return 0;
    const claimant = {
      workerId: this.id,
      channels: [...this.channels.keys()],
      leaseMs: this.parts.config.OUTBOX_LEASE_MS,
    };
    const due = await outbox.claimDue(this.parts.db, claimant, now, room);
    for (const delivery of due) {
      const made: Promise<void> = this.deliver(delivery as Delivery)
        .catch((err: Error) => this.log.error({ err: { message: err.message } }, "delivery not recorded"))
        .finally(() => {
          this.inFlight.delete(made);
          this.wake?.();
        });
      this.inFlight.add(made);
    }
    return due.length;
  }

  private async attempt(d: Delivery, now: number): Promise<Outcome> {
    const channel = this.channels.get(d.channel);
    if (!channel) return { kind: "permanent", reason: `the ${d.channel} channel is not configured on this server` };
    if (d.kind === "delivery-failed" || d.kind === "digest" || d.kind.startsWith("booking")) {
      const { db, links, facts } = this.parts;
      const payload = d.payload ?? "{}";
      const words =
        d.kind === "digest" ? links && (await digestWords(db, links, payload, now, facts)) : JSON.parse(payload);
      return words ? channel.notify(d.kind as AlertKind, words.subject, words.text, words.inquiryIds, words) : "drop";
    }
    const { inquiry } = d;
    if (!inquiry) return "drop";
    const target = destinationsFor(this.parts.routing, inquiry.service).find((x) => x.channel === d.channel)?.target;
    if (d.kind === "lead") {
      if (!target)
        return { kind: "permanent", reason: `this service's leads no longer go to ${d.channel} on this server` };
      d.target = target;
      return channel.deliver({ ...d, inquiry, target });
    }
    if (!target) return "drop";
    if (d.kind === "reminder") {
      const reminder = reminderNow(inquiry, now, this.parts.facts);
      if (reminder === "drop" || "at" in reminder) return reminder;
      return channel.remind?.(inquiry, target, reminder) ?? "drop";
    }
    return (
      channel.report?.(inquiry, target, reportEvent(d.kind, inquiry, now, this.parts.facts), d.messageId) ?? "drop"
    );
  }

  private async deliver(d: Delivery): Promise<void> {
    const { db, metrics, config } = this.parts;
    const kind = d.kind as DeliveryKind;
    const log = this.log.child({ inquiryId: d.inquiryId ?? undefined, channel: d.channel, attempt: d.attempts });
    const lease = config.OUTBOX_LEASE_MS;
    const hold = setInterval(() => {
      outbox.extendClaim(db, d.id, this.id, this.now() + lease).catch(() => undefined);
    }, lease / 3);
    const outcome = await this.attempt(d, this.now()).catch(
      (err: Error): Outcome => ({ kind: "retry", reason: err.message }),
    );
    clearInterval(hold);
    const now = this.now();
    if (outcome === "drop") return outbox.drop(db, d.id, this.id);
    if ("at" in outcome) return outbox.postpone(db, d.id, this.id, outcome.at);
    const see = `see \`npm run inquiries -- show ${d.inquiryId}\``;
    if (outcome.kind === "delivered") {
      const recorded = await outbox.recordSent(db, d.id, this.id, now, d.target);
      if (kind === "lead" && d.inquiry) {
        metrics?.delivered(d.channel, (now - d.inquiry.receivedAt) / 1000);
        const via = this.channels.get(d.channel)?.describe();
        log.info({ via, to: d.target, detail: outcome.detail, marked: recorded }, SAID.lead[0]);
      } else log.info({ to: outcome.detail ?? d.target }, SAID[kind][0]);
      if (kind === "reminder" && d.inquiry && recorded) {
        await recordReminded(db, d.inquiry.id, now, reportOf("inquiry.reminded", d.inquiry, this.parts.routing, now));
        metrics?.reminded();
        this.nudge();
      }
      if (outcome.refused && kind === "lead") {
        const reason = `refused by ${outcome.refused.join(", ")}: ${outcome.detail}`;
        log.fatal({ reason }, `INQUIRY ${d.channel.toUpperCase()} REFUSED BY SOME RECIPIENTS; ${see}`);
        await this.alert(d, reason, "refused", now);
      }
      return;
    }
    const reason = outcome.reason.slice(0, 1000);
    // Not recorded: held while under way (cancelled, nobody alerted), or the claim went to another worker.
    const cancelled = async () => {
      if (await outbox.cancelHeld(db, d.id, this.id))
        log.info({ reason }, "inquiry delivery cancelled: marked spam while under way, not tried again");
    };
    if (outcome.kind === "permanent" || now - d.createdAt >= config.OUTBOX_GIVE_UP_AFTER_MS) {
      if (!(await outbox.fail(db, d.id, this.id, reason))) return cancelled();
      metrics?.failed(d.channel);
      if (kind !== "lead")
        return log.error({ reason, kind }, `${SAID[kind][1].replace(/; tried again later$/, "")}: failed for good`);
      const permanent = outcome.kind === "permanent";
      log.fatal({ reason, permanent }, `INQUIRY ${d.channel.toUpperCase()} DELIVERY FAILED PERMANENTLY; ${see}`);
      return this.alert(d, reason, "failed", now);
    }
    // Equal jitter: between half and all of the exponential delay, so many retries spread out.
    const exponential = Math.min(
      config.OUTBOX_RETRY_MAX_MS,
      config.OUTBOX_RETRY_BASE_MS * 2 ** Math.max(0, d.attempts - 1),
    );
    const delay = Math.max(Math.round(exponential / 2 + (Math.random() * exponential) / 2), outcome.retryAfterMs ?? 0);
    if (!(await outbox.retryAt(db, d.id, this.id, now + delay, reason))) return cancelled();
    metrics?.retried(d.channel);
    log.warn({ reason, retryInMs: delay }, SAID[kind][1]);
  }

  private async alert(d: Delivery, reason: string, why: string, now: number): Promise<void> {
    const i = d.inquiry;
    const subject = `Lead delivery failed: ${d.channel} for inquiry ${d.inquiryId}`;
    const text = [
      `The ${d.channel} delivery of inquiry ${d.inquiryId} (from ${i?.name}, received ${new Date(i?.receivedAt ?? now).toISOString()}) failed permanently: ${reason}`,
      `See it with \`npm run inquiries -- show ${d.inquiryId}\`; after a fix, \`npm run inquiries -- retry --channel ${d.channel}\`.`,
    ].join("\n");
    const payload = JSON.stringify({ subject, text, inquiryIds: [d.inquiryId] });
    const alerts = [...this.channels.keys()]
      .filter((c) => c !== d.channel)
      .map(
        (channel): NewDelivery => ({
          id: `${d.id}-${why}-${channel}`,
          kind: "delivery-failed",
          channel,
          target: "default",
          messageId: `alert_${d.id}_${why}`,
          payload,
        }),
      );
    await this.parts.db.transaction((tx) => outbox.queue(tx, d.inquiryId, alerts, now));
    this.nudge();
  }
}
