import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { Config } from "../../config.ts";
import type { ContactMetrics } from "../metrics.ts";
import { type Database, StorageUnavailableError } from "../storage/database.ts";
import { listHeld, purge } from "../storage/inquiries.ts";
import * as outbox from "../storage/outbox.ts";
import type { Delivery } from "../storage/records.ts";
import { claimTurn, readSetting, writeSetting } from "../storage/settings.ts";
import type { Attempt, Channel } from "./channel.ts";

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
  log: Logger;
  /** The outbox's timings, and how often, at most, the company hears what was held as spam. */
  config: Pick<
    Config,
    | "OUTBOX_POLL_MS"
    | "OUTBOX_RETRY_BASE_MS"
    | "OUTBOX_RETRY_MAX_MS"
    | "OUTBOX_GIVE_UP_AFTER_MS"
    | "OUTBOX_LEASE_MS"
    | "HELD_SUMMARY_INTERVAL_MS"
  >;
  metrics?: ContactMetrics;
  /** Inquiries older than this many days are deleted (the imprint's promise, site.ts). */
  retentionDays: number;
};

/** How many deliveries one worker makes at once. */
const MAX_IN_HAND = 16;

export class OutboxWorker {
  readonly id = `worker-${randomUUID()}`;
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private nextSummaryCheck = 0;
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
        if (Date.now() >= this.nextSummaryCheck) {
          this.nextSummaryCheck = Date.now() + Math.min(60_000, this.parts.config.HELD_SUMMARY_INTERVAL_MS);
          await this.summarizeHeld();
          await this.applyRetention();
        }
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
    const due = await outbox.claimDue(this.parts.db, this.id, now, this.parts.config.OUTBOX_LEASE_MS, room);
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

  private async deliver(delivery: Delivery): Promise<void> {
    const { db, metrics, config } = this.parts;
    const { inquiryId, attempts } = delivery;
    const log = this.log.child({ inquiryId, channel: delivery.channel, attempt: attempts });
    const channel = this.channels.get(delivery.channel);
    const attempt: Attempt = channel
      ? await channel.deliver(delivery).catch((err: Error) => ({ kind: "retry" as const, reason: err.message }))
      : { kind: "permanent", reason: `the ${delivery.channel} channel is not configured on this server` };
    const now = Date.now();
    if (attempt.kind === "delivered") {
      const marked = await outbox.markSent(db, delivery.id, this.id, now);
      metrics?.delivered(delivery.channel, (now - delivery.inquiry.receivedAt) / 1000);
      log.info({ via: channel?.describe(), detail: attempt.detail, marked }, "inquiry delivered");
      return;
    }
    const reason = attempt.reason.slice(0, 1000);
    if (attempt.kind === "permanent" || now - delivery.createdAt >= config.OUTBOX_GIVE_UP_AFTER_MS) {
      await outbox.markFailed(db, delivery.id, this.id, reason);
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
    await outbox.markRetry(db, delivery.id, this.id, now + delay, reason);
    metrics?.retried(delivery.channel);
    log.warn({ reason, retryInMs: delay }, "inquiry delivery failed; will retry");
  }

  /**
   * At most once per interval across every instance: one email of what was held as suspected spam
   * since the last summary, so that a person held by mistake is noticed. Nothing held: nothing sent.
   */
  async summarizeHeld(now = Date.now()): Promise<boolean> {
    const email = this.channels.get("email");
    if (!email) return false;
    const { db } = this.parts;
    const interval = this.parts.config.HELD_SUMMARY_INTERVAL_MS;
    // One instance tries at a time (a short claim); the summary is marked sent only once it is, so a
    // failed one is tried again at the next claim and no held message goes unsummarized.
    if (!(await claimTurn(db, "held_summary_claim", now, Math.min(interval, 300_000)))) return false;
    const sentAt = Number((await readSetting(db, "held_summary_at")) ?? 0);
    if (now - sentAt < interval) return false;
    const turn = { since: sentAt || now - interval };
    const held = await listHeld(db, turn.since);
    if (held.length === 0) return false;
    const lines = held.slice(0, 20).map((i) => `- ${i.name} <${i.email}>: ${i.heldReason ?? "held"} (${i.id})`);
    if (held.length > 20) lines.push(`- and ${held.length - 20} more`);
    const text = [
      `${held.length} message(s) were held as suspected spam since ${new Date(turn.since).toISOString()}:`,
      ...lines,
      "",
      "Review them with `npm run inquiries -- held`; deliver one that a person sent with `npm run inquiries -- release ID`.",
    ].join("\n");
    try {
      const since = new Date(turn.since).toISOString().slice(0, 16).replace("T", " ");
      await email.notify(`Held as spam: ${held.length} message(s) since ${since} UTC`, text);
      await writeSetting(db, "held_summary_at", String(now));
      this.log.info({ held: held.length }, "held-messages summary sent");
      return true;
    } catch (err) {
      this.log.error({ err: { message: (err as Error).message } }, "could not send the held-messages summary");
      return false;
    }
  }

  /**
   * Once a day across every instance: delete the inquiries older than the retention period the
   * imprint promises (site.ts), logging how many, and how many of them still had a delivery waiting.
   */
  async applyRetention(now = Date.now()): Promise<{ deleted: number; pendingCut: number } | null> {
    const { db, retentionDays } = this.parts;
    if (!(await claimTurn(db, "retention_at", now, 86_400_000))) return null;
    const result = await purge(db, now - retentionDays * 86_400_000);
    const log = { ...result, retentionDays };
    if (result.pendingCut > 0)
      this.log.warn(log, "retention: deleted old inquiries, some with a delivery still waiting");
    else this.log.info(log, "retention: deleted old inquiries");
    return result;
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
      await other.notify(subject, text).then(
        () => log.info("delivery failure reported"),
        (err: Error) => log.error({ err: { message: err.message } }, "could not report a delivery failure"),
      );
    }
  }
}
