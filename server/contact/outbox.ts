import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { ContactConfig } from "./config.ts";
import { StorageUnavailableError } from "./db.ts";
import { buildMail, type Mailer } from "./mailer.ts";
import type { Job, Store } from "./store.ts";

/**
 * Delivers email jobs from the outbox table. Each pass claims the jobs that are due (or whose
 * worker died mid-send), sends them, and marks each sent — or schedules a retry with exponential
 * backoff and jitter, until the retry window (24 hours by default) is over and the job is marked
 * failed. Delivery is at least once: a duplicate can only come from a crash between the relay's
 * accept and the mark, and it carries the same Message-ID.
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
  private readonly mailer: Mailer;
  private readonly log: Logger;
  private readonly opts: OutboxOptions;
  private readonly addresses: { from: string; to: string };

  constructor(deps: {
    store: Store;
    mailer: Mailer;
    log: Logger;
    options: OutboxOptions;
    addresses: { from: string; to: string };
  }) {
    this.store = deps.store;
    this.mailer = deps.mailer;
    this.log = deps.log.child({ worker: this.id });
    this.opts = deps.options;
    this.addresses = deps.addresses;
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
    const released = await this.store.release(this.id).catch(() => 0);
    if (released > 0) this.log.info({ released }, "released claimed email jobs");
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
    const jobs = await this.store.claimDue(this.id, now, this.opts.leaseMs, this.opts.batchSize ?? 16);
    await Promise.all(jobs.map((job) => this.deliver(job)));
    return jobs.length;
  }

  private async deliver(job: Job): Promise<void> {
    const log = this.log.child({ inquiryId: job.inquiryId, attempt: job.attempts });
    try {
      const mail = buildMail(job.inquiry, this.addresses);
      const result = await this.mailer.send(mail, job.inquiryId);
      if (!result.accepted) throw new Error(`relay did not accept the message: ${result.detail}`);
      const marked = await this.store.markSent(job.id, this.id, Date.now());
      log.info({ via: this.mailer.describe(), detail: result.detail, marked }, "inquiry email delivered");
    } catch (err) {
      const reason = (err as Error).message || String(err);
      const now = Date.now();
      if (now - job.createdAt >= this.opts.giveUpAfterMs) {
        await this.store.markFailed(job.id, this.id, reason);
        // Loud on purpose: a person must look at this inquiry (`npm run inquiries -- retry` after a fix).
        log.fatal(
          { reason },
          "INQUIRY EMAIL FAILED PERMANENTLY: delivery window exhausted; see `npm run inquiries -- list`",
        );
        return;
      }
      const delay = retryDelay(job.attempts, this.opts.retryBaseMs, this.opts.retryMaxMs);
      await this.store.markRetry(job.id, this.id, now + delay, reason);
      log.warn({ reason, retryInMs: delay }, "inquiry email delivery failed; will retry");
    }
  }
}
