import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "../../config.ts";
import type { ContactMetrics } from "../metrics.ts";
import { type Database, StorageUnavailableError } from "../storage/database.ts";
import * as outbox from "../storage/outbox.ts";
import type { Delivery } from "../storage/records.ts";
import type { Attempt, Channel } from "./channel.ts";
import { destinationsFor, type Routing } from "./routing.ts";

/**
 * Delivers the outbox (docs/decisions/0004): claim what is due, hand each delivery to its channel,
 * mark it sent, or retry it with backoff until the retry window ends; a permanent failure is logged
 * at `fatal` and reported through the other channels. At least once: a duplicate carries the same id.
 */

function retryDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  // "Equal jitter": between half and all of the exponential delay, so retries from many jobs spread out.
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

type WorkerParts = {
  db: Database;
  channels: Channel[];
  /** Where each service's leads go now (delivery/routing.ts): a delivery follows it when it is sent. */
  routing: Routing;
  log: Logger;
  /** The outbox's timings. */
  config: Pick<
    Config,
    "OUTBOX_POLL_MS" | "OUTBOX_RETRY_BASE_MS" | "OUTBOX_RETRY_MAX_MS" | "OUTBOX_GIVE_UP_AFTER_MS" | "OUTBOX_LEASE_MS"
  >;
  metrics?: ContactMetrics;
};

/** How many deliveries one worker makes at once. */
const MAX_IN_HAND = 16;

export class OutboxWorker {
  readonly id = `worker-${randomUUID()}`;
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  /** Deliveries being made: each finishes on its own, bounded by its channel's timeout. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly parts: WorkerParts;
  private readonly channels: Map<string, Channel>;
  private readonly log: Logger;
  constructor(parts: WorkerParts) {
    this.parts = parts;
    this.channels = new Map(parts.channels.map((c) => [c.name, c]));
    this.log = parts.log.child({ worker: this.id });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** A new delivery was stored: look for work now instead of at the next poll. */
  nudge(): void {
    this.wake?.();
  }

  /** Resolves when the deliveries in hand have been made and recorded. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight);
  }

  /** Finish the deliveries in hand (up to `graceMs`), then give back any still claimed. */
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
      let worked = 0;
      try {
        worked = await this.pass();
      } catch (err) {
        // An outage was logged once by the database's watcher; the next poll tries again.
        if (!(err instanceof StorageUnavailableError)) {
          this.log.error({ err: { message: (err as Error).message } }, "outbox pass failed");
        }
      }
      if (worked === 0 && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.parts.config.OUTBOX_POLL_MS);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /**
   * One pass: claim what is due, up to 16 in hand at once, and start each delivery; it finishes on
   * its own, so one slow receiver never holds the others (the loop claims again as each ends).
   * Returns how many it started.
   */
  async pass(now = Date.now()): Promise<number> {
    const room = MAX_IN_HAND - this.inFlight.size;
    if (room <= 0) return 0;
    const claimant = {
      workerId: this.id,
      channels: [...this.channels.keys()],
      leaseMs: this.parts.config.OUTBOX_LEASE_MS,
    };
    const due = await outbox.claimDue(this.parts.db, claimant, now, room);
    for (const delivery of due) {
      const made: Promise<void> = this.deliver(delivery)
        .catch((err: Error) => this.log.error({ err: { message: err.message } }, "delivery not recorded"))
        .finally(() => {
          this.inFlight.delete(made);
          this.wake?.();
        });
      this.inFlight.add(made);
    }
    return due.length;
  }

  private async deliver(claimed: Delivery): Promise<void> {
    const { db, metrics, config } = this.parts;
    const { inquiryId, attempts } = claimed;
    const log = this.log.child({ inquiryId, channel: claimed.channel, attempt: attempts });
    const channel = this.channels.get(claimed.channel);
    // One rule for every channel: a delivery goes where this service's leads go when it is sent, so
    // a corrected address or a changed route reaches the leads still waiting.
    const destination = destinationsFor(this.parts.routing, claimed.inquiry.service).find(
      (d) => d.channel === claimed.channel,
    );
    const delivery = { ...claimed, target: destination?.target ?? null };
    // The claim is held while the send lasts: never taken over, and sent again, while this worker lives.
    const lease = config.OUTBOX_LEASE_MS;
    const hold = setInterval(() => {
      outbox.extendClaim(db, delivery.id, this.id, Date.now() + lease).catch(() => undefined);
    }, lease / 3);
    const attempt: Attempt = !destination
      ? { kind: "permanent", reason: `this service's leads no longer go to ${claimed.channel} on this server` }
      : channel
        ? await channel.deliver(delivery).catch((err: Error) => ({ kind: "retry" as const, reason: err.message }))
        : { kind: "permanent", reason: `the ${delivery.channel} channel is not configured on this server` };
    clearInterval(hold);
    const now = Date.now();
    if (attempt.kind === "delivered") {
      const marked = await outbox.markSent(db, delivery.id, this.id, now, delivery.target);
      metrics?.delivered(delivery.channel, (now - delivery.inquiry.receivedAt) / 1000);
      log.info({ via: channel?.describe(), to: delivery.target, detail: attempt.detail, marked }, "inquiry delivered");
      if (attempt.refused) {
        // Delivered to those who took it; the ones who refused it for good are named, once.
        const reason = `refused by ${attempt.refused.join(", ")}: ${attempt.detail}`;
        log.fatal(
          { reason },
          `INQUIRY ${delivery.channel.toUpperCase()} REFUSED BY SOME RECIPIENTS; see \`npm run inquiries -- show ${inquiryId}\``,
        );
        await this.alert(delivery, reason);
      }
      return;
    }
    const reason = attempt.reason.slice(0, 1000);
    // Not recorded: marked spam while this attempt was under way (it is cancelled, never tried again,
    // nobody is alerted), or the claim was lost to another worker (which records it).
    const cancelled = async () => {
      if (await outbox.cancelHeld(db, delivery.id, this.id))
        log.info({ reason }, "inquiry delivery cancelled: marked spam while under way, not tried again");
    };
    if (attempt.kind === "permanent" || now - delivery.createdAt >= config.OUTBOX_GIVE_UP_AFTER_MS) {
      if (!(await outbox.markFailed(db, delivery.id, this.id, reason))) {
        await cancelled();
        return;
      }
      metrics?.failed(delivery.channel);
      // Loud on purpose: a person must look at this inquiry (`npm run inquiries -- retry` after a fix).
      log.fatal(
        { reason, permanent: attempt.kind === "permanent" },
        `INQUIRY ${delivery.channel.toUpperCase()} DELIVERY FAILED PERMANENTLY; see \`npm run inquiries -- show ${delivery.inquiryId}\``,
      );
      await this.alert(delivery, reason);
      return;
    }
    const backoff = retryDelay(delivery.attempts, config.OUTBOX_RETRY_BASE_MS, config.OUTBOX_RETRY_MAX_MS);
    const delay = Math.max(backoff, attempt.retryAfterMs ?? 0);
    if (!(await outbox.markRetry(db, delivery.id, this.id, now + delay, reason))) {
      await cancelled();
      return;
    }
    metrics?.retried(delivery.channel);
    log.warn({ reason, retryInMs: delay }, "inquiry delivery failed; will retry");
  }

  /** Tell the people through every other channel that one delivery of an inquiry failed for good. */
  private async alert(delivery: Delivery, reason: string): Promise<void> {
    const subject = `Lead delivery failed: ${delivery.channel} for inquiry ${delivery.inquiryId}`;
    const text = [
      `The ${delivery.channel} delivery of inquiry ${delivery.inquiryId} (from ${delivery.inquiry.name}, received ${new Date(delivery.inquiry.receivedAt).toISOString()}) failed permanently: ${reason}`,
      `See it with \`npm run inquiries -- show ${delivery.inquiryId}\`; after a fix, \`npm run inquiries -- retry --channel ${delivery.channel}\`.`,
    ].join("\n");
    for (const other of this.channels.values()) {
      if (other.name === delivery.channel) continue;
      const log = this.log.child({ inquiryId: delivery.inquiryId, channel: delivery.channel, via: other.name });
      await other.notify("delivery-failed", subject, text, [delivery.inquiryId]).then(
        () => log.info("delivery failure reported"),
        (err: Error) => log.error({ err: { message: err.message } }, "could not report a delivery failure"),
      );
    }
  }
}
