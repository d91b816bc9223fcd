import { join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Channel } from "./delivery/channel.ts";
import { erase } from "./erasure.ts";
import { sendHeldSummary } from "./review/held-summary.ts";
import type { LeadLinks } from "./review/links.ts";
import type { Database } from "./storage/database.ts";
import { claimTurn } from "./storage/settings.ts";

/**
 * The contact pipeline's scheduled work, apart from delivery (delivery/worker.ts only delivers): the
 * summary of held messages (review/held-summary.ts), and the retention pass that keeps the privacy notice's promise. Each
 * runs at most once per interval across every instance on the database (settings.claimTurn), checked
 * every minute (sooner when an interval is shorter).
 */

type Parts = {
  db: Database;
  /** The email channel: where the summary goes. */
  email: Channel | undefined;
  log: Logger;
  config: Pick<Config, "HELD_SUMMARY_INTERVAL_MS" | "RETENTION_INTERVAL_MS" | "OUTBOX_LEASE_MS" | "dataDir">;
  /** What is older than this many days is deleted (site.privacy.retentionDays). */
  retentionDays: number;
  /** The signed "Not spam" link each held message in the summary carries. */
  links: LeadLinks;
};

export class Housekeeping {
  private readonly parts: Parts;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(parts: Parts) {
    this.parts = parts;
    this.log = parts.log.child({ task: "housekeeping" });
  }

  start(): void {
    const { HELD_SUMMARY_INTERVAL_MS, RETENTION_INTERVAL_MS } = this.parts.config;
    const every = Math.min(60_000, HELD_SUMMARY_INTERVAL_MS, RETENTION_INTERVAL_MS);
    const tick = () => {
      this.running = this.turn().finally(() => {
        if (!this.stopped) this.timer = setTimeout(tick, every).unref();
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One turn of each task; a failure (storage away) is logged, and the next turn tries again. */
  private async turn(): Promise<void> {
    for (const task of [() => this.summarizeHeld(), () => this.applyRetention()]) {
      await task().catch((err: Error) => this.log.error({ err: { message: err.message } }, "housekeeping failed"));
    }
  }

  /** The summary of held messages (review/held-summary.ts). */
  summarizeHeld(): Promise<boolean> {
    const { db, email, links, config } = this.parts;
    return sendHeldSummary({ db, email, links, intervalMs: config.HELD_SUMMARY_INTERVAL_MS, log: this.log });
  }

  /**
   * Once per RETENTION_INTERVAL_MS (a day) across every instance: erase everything older than the
   * period the privacy notice promises (erasure.ts), logging what went.
   */
  async applyRetention(now = Date.now()) {
    const { db, retentionDays, config } = this.parts;
    if (!(await claimTurn(db, "retention_at", config.RETENTION_INTERVAL_MS))) return null;
    const before = now - retentionDays * 86_400_000;
    const result = await erase(db, join(config.dataDir, "mail"), { before }, { waitMs: config.OUTBOX_LEASE_MS, now });
    const log = { ...result, retentionDays };
    if (result.pendingCut > 0)
      this.log.warn(log, "retention: erased old inquiries, some with a delivery still waiting");
    else this.log.info(log, "retention: erased what is past the privacy notice's period");
    return result;
  }
}
