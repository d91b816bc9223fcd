import { join } from "node:path";
import type { Logger } from "pino";
import { refreshFeeds } from "../booking/feeds.ts";
import type { Config } from "../config.ts";
import { eraseOldCopies } from "./copies.ts";
import { erase } from "./erasure.ts";
import { type KeyRing, monthOf } from "./keys.ts";
import { queueDigest } from "./review/digest.ts";
import type { Promised } from "./review/promise.ts";
import type { Database } from "./storage/database.ts";
import { deleteExpiredKeys } from "./storage/keys.ts";

/**
 * The scheduled work on each instance apart from sending: the keys read again and pruned, the
 * morning digest queued, and the retention pass, which every instance runs (erasing what is past
 * its date twice erases nothing more).
 */

export const RETENTION_INTERVAL_MS = 24 * 60 * 60_000;
/** How often housekeeping looks: the digest goes within this of opening time. */
export const HOUSEKEEPING_TURN_MS = 60_000;

type Parts = {
  db: Database;
  log: Logger;
  config: Config;
  retentionDays: number;
  backupDays: number;
  ring: KeyRing;
  worker: { nudge(): void };
  clock?: () => number;
  facts?: Promised;
};

export class Housekeeping {
  private readonly parts: Parts;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private retainedAt = 0;

  constructor(parts: Parts) {
    this.parts = parts;
    this.log = parts.log.child({ task: "housekeeping" });
  }

  start(): void {
    const { HOUSEKEEPING_TURN_MS, RETENTION_INTERVAL_MS } = this.parts.config;
    const every = Math.min(HOUSEKEEPING_TURN_MS, RETENTION_INTERVAL_MS);
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

  private async turn(): Promise<void> {
    const tasks = [
      () => this.refreshKeys(),
      () => this.digest(),
      () => this.applyRetention(),
      async () => this.eraseCopies(),
      () => refreshFeeds(this.parts.db, this.parts.config, this.log),
    ];
    for (const task of tasks) {
      await task().catch((err: Error) => this.log.error({ err: { message: err.message } }, "housekeeping failed"));
    }
  }

  async refreshKeys(now = Date.now()): Promise<void> {
    const { db, ring, config } = this.parts;
    const deleted = await deleteExpiredKeys(db, {
      now,
      linkTtlMs: config.INQUIRY_LINK_DAYS * 86_400_000,
      formTtlMs: config.FORM_TOKEN_MAX_AGE_MS,
      month: monthOf(now),
    });
    if (deleted > 0) this.log.info({ deleted }, "keys past their use deleted");
    await ring.read(now);
  }

  async digest(now = (this.parts.clock ?? Date.now)()): Promise<boolean> {
    const queued = await queueDigest(this.parts.db, now, this.parts.facts);
    if (queued) this.parts.worker.nudge();
    return queued;
  }

  eraseCopies(now = Date.now()): string[] {
    const { config, backupDays } = this.parts;
    const files = eraseOldCopies(config.dataDir, backupDays, now);
    if (files.length > 0) this.log.info({ files, backupDays }, "retention: erased copies past the backup period");
    return files;
  }

  async applyRetention(now = Date.now()) {
    const { db, retentionDays, config } = this.parts;
    if (this.retainedAt <= now && now - this.retainedAt < config.RETENTION_INTERVAL_MS) return null;
    this.retainedAt = now;
    const before = now - retentionDays * 86_400_000;
    const result = await erase(db, join(config.dataDir, "mail"), { before }, { waitMs: config.OUTBOX_LEASE_MS, now });
    if (result.pendingCut > 0)
      this.log.warn(
        { ...result, retentionDays },
        "retention: erased old inquiries, some with a delivery still waiting",
      );
    else this.log.info({ ...result, retentionDays }, "retention: erased what is past the privacy notice's period");
    return result;
  }
}
