import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { Batcher } from "./batcher.ts";
import type { Channel, Outcome } from "./channels.ts";
import type { ContactConfig } from "./config.ts";
import { StorageUnavailableError } from "./db.ts";
import type { ContactMetrics } from "./metrics.ts";
import type { ChannelName, Job, Store } from "./store.ts";

/**
 * Delivers the outbox: one delivery per inquiry and channel. Each pass claims the deliveries that
 * are due (or whose worker died mid-send), hands each to its channel, and marks it sent — or
 * schedules a retry with exponential backoff and jitter (never sooner than a receiver's
 * Retry-After), until the retry window (24 hours by default) is over; a channel's permanent "no"
 * (a 4xx) fails it at once. A delivery that fails for good is logged at `fatal` and reported
 * through the other channels. Delivery is at least once: a duplicate can only come from a crash
 * between the receiver's accept and the mark, and it carries the same Message-ID / webhook-id.
 */

export type OutboxOptions = ContactConfig["outbox"] & { batchSize?: number };

export function retryDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  // "Equal jitter": between half and all of the exponential delay, so retries from many jobs spread out.
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

export class OutboxWorker {
  readonly id = `worker-${randomUUID()}`;
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly store: Store;
  private readonly channels: Map<ChannelName, Channel>;
  private readonly log: Logger;
  private readonly opts: OutboxOptions;
  private readonly metrics?: ContactMetrics;
  private readonly heldSummaryIntervalMs: number;
  private nextSummaryCheck = 0;
  /**
   * Deliveries accepted while an earlier mark is being written are marked sent together, in one
   * statement (the first at once: no waiting when it is quiet). Under load that is one write for
   * many deliveries instead of one each, and a receiver's accept is recorded as soon as before.
   */
  private readonly marks = new Batcher<string, boolean>((ids) =>
    this.store.outbox.markSent(ids, this.id, Date.now()).then((marked) => ids.map((id) => marked.has(id))),
  );

  constructor(deps: {
    store: Store;
    channels: Channel[];
    log: Logger;
    options: OutboxOptions;
    metrics?: ContactMetrics;
    /** How often, at most, the company hears what was held as spam (default: daily). */
    heldSummaryIntervalMs?: number;
  }) {
    this.heldSummaryIntervalMs = deps.heldSummaryIntervalMs ?? 86_400_000;
    this.store = deps.store;
    this.channels = new Map(deps.channels.map((c) => [c.name, c]));
    this.log = deps.log.child({ worker: this.id });
    this.opts = deps.options;
    this.metrics = deps.metrics;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** A new job was stored: look for work now instead of at the next poll. */
  nudge(): void {
    this.wake?.();
  }

  /** Finish the jobs in hand (up to `graceMs`), then give back any still claimed. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    await Promise.race([this.loop, new Promise((r) => setTimeout(r, graceMs).unref())]);
    const released = await this.store.outbox.release(this.id).catch(() => 0);
    if (released > 0) this.log.info({ released }, "released claimed deliveries");
  }

  private async run(): Promise<void> {
    while (this.running) {
      let worked = 0;
      try {
        worked = await this.pass();
        if (Date.now() >= this.nextSummaryCheck) {
          this.nextSummaryCheck = Date.now() + Math.min(60_000, this.heldSummaryIntervalMs);
          await this.summarizeHeld();
        }
      } catch (err) {
        // An outage was logged once by the database's watcher; the next poll tries again.
        if (!(err instanceof StorageUnavailableError)) {
          this.log.error({ err: { message: (err as Error).message } }, "outbox pass failed");
        }
      }
      if (worked === 0 && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.opts.pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /** One pass: claim due jobs, deliver them concurrently, record each outcome. Returns how many. */
  async pass(now = Date.now()): Promise<number> {
    const jobs = await this.store.outbox.claimDue(this.id, now, this.opts.leaseMs, this.opts.batchSize ?? 16);
    await Promise.all(jobs.map((job) => this.deliver(job)));
    return jobs.length;
  }

  private async deliver(job: Job): Promise<void> {
    const log = this.log.child({ inquiryId: job.inquiryId, channel: job.channel, attempt: job.attempts });
    const channel = this.channels.get(job.channel);
    const outcome: Outcome = channel
      ? await channel.deliver(job).catch((err: Error) => ({ kind: "retry" as const, reason: err.message }))
      : { kind: "permanent", reason: `the ${job.channel} channel is not configured on this server` };
    const now = Date.now();
    if (outcome.kind === "delivered") {
      const marked = await this.marks.add(job.id);
      this.metrics?.delivered(job.channel, (now - job.inquiry.receivedAt) / 1000);
      log.info({ via: channel?.describe(), detail: outcome.detail, marked }, "inquiry delivered");
      return;
    }
    const reason = outcome.reason.slice(0, 1000);
    if (outcome.kind === "permanent" || now - job.createdAt >= this.opts.giveUpAfterMs) {
      await this.store.outbox.markFailed(job.id, this.id, reason);
      this.metrics?.failed(job.channel);
      // Loud on purpose: a person must look at this inquiry (`npm run inquiries -- retry` after a fix).
      log.fatal(
        { reason, permanent: outcome.kind === "permanent" },
        `INQUIRY ${job.channel.toUpperCase()} DELIVERY FAILED PERMANENTLY; see \`npm run inquiries -- show ${job.inquiryId}\``,
      );
      await this.alert(job, reason);
      return;
    }
    const backoff = retryDelay(job.attempts, this.opts.retryBaseMs, this.opts.retryMaxMs);
    const delay = Math.max(backoff, outcome.retryAfterMs ?? 0);
    await this.store.outbox.markRetry(job.id, this.id, now + delay, reason);
    this.metrics?.retried(job.channel);
    log.warn({ reason, retryInMs: delay }, "inquiry delivery failed; will retry");
  }

  /**
   * At most once per interval (daily), across every instance: one short email of what was held
   * as suspected spam since the last summary — how many, and from whom — so that a person who was
   * held by mistake is noticed (`npm run inquiries -- held`, then `release ID`). Nothing held:
   * nothing is sent.
   */
  async summarizeHeld(now = Date.now()): Promise<boolean> {
    const email = this.channels.get("email");
    if (!email) return false;
    const turn = await this.store.operator.claimHeldSummary(now, this.heldSummaryIntervalMs);
    if (!turn) return false;
    const held = await this.store.operator.listHeld(turn.since);
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
      await email.notify(`Held as spam: ${held.length} message(s) in the last day`, text);
      this.log.info({ held: held.length }, "held-messages summary sent");
      return true;
    } catch (err) {
      this.log.error({ err: { message: (err as Error).message } }, "could not send the held-messages summary");
      return false;
    }
  }

  /** Tell the people through every other channel that one delivery of an inquiry failed for good. */
  private async alert(job: Job, reason: string): Promise<void> {
    const subject = `Lead delivery failed: ${job.channel} for inquiry ${job.inquiryId}`;
    const text = [
      `The ${job.channel} delivery of inquiry ${job.inquiryId} (from ${job.inquiry.name}, received ${new Date(job.inquiry.receivedAt).toISOString()}) failed permanently: ${reason}`,
      `See it with \`npm run inquiries -- show ${job.inquiryId}\`; after a fix, \`npm run inquiries -- retry --channel ${job.channel}\`.`,
    ].join("\n");
    for (const other of this.channels.values()) {
      if (other.name === job.channel) continue;
      try {
        await other.notify(subject, text);
        this.log.info({ inquiryId: job.inquiryId, channel: job.channel, via: other.name }, "delivery failure reported");
      } catch (err) {
        this.log.error(
          { inquiryId: job.inquiryId, channel: job.channel, via: other.name, err: { message: (err as Error).message } },
          "could not report a delivery failure",
        );
      }
    }
  }
}
