import { join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { eraseOldCopies } from "./copies.ts";
import type { Channel } from "./delivery/channel.ts";
import type { Routing } from "./delivery/routing.ts";
import { erase } from "./erasure.ts";
import { type KeyRing, monthOf } from "./keys.ts";
import type { ContactMetrics } from "./metrics.ts";
import { sendHeldSummary } from "./review/held-summary.ts";
import type { LeadLinks } from "./review/links.ts";
import type { Promised } from "./review/promise.ts";
import { sendReminders, sendReplyReports } from "./review/reminders.ts";
import type { Database, Sql } from "./storage/database.ts";
import { deleteExpiredKeys } from "./storage/keys.ts";
import { claimTurn, databaseNow } from "./storage/settings.ts";

/**
 * The contact pipeline's scheduled work, apart from delivery (delivery/worker.ts only delivers): the
 * summary of held messages (review/held-summary.ts), and the retention pass that keeps the privacy
 * notice's promise, each at most once per interval across every instance on the database
 * (settings.claimTurn); the reminders of leads nobody took (review/reminders.ts), each claimed by one
 * instance; and the keys (keys.ts), read again and pruned. Checked every minute (sooner when an
 * interval is shorter).
 */

/** What time it is for the scheduled work: the database's clock (one for every instance), or a test's. */
export type Clock = (db: Sql) => Promise<number>;

type Parts = {
  db: Database;
  /** The email channel: where the summary and the reminders go. */
  email: Channel | undefined;
  /** The webhook channel: where the reply promise's reports go. */
  webhook: Channel | undefined;
  log: Logger;
  config: Pick<
    Config,
    | "HELD_SUMMARY_INTERVAL_MS"
    | "RETENTION_INTERVAL_MS"
    | "OUTBOX_LEASE_MS"
    | "dataDir"
    | "INQUIRY_LINK_DAYS"
    | "FORM_TOKEN_MAX_AGE_MS"
    | "REMINDER_CHECK_MS"
  >;
  /** What is older than this many days is deleted (site.privacy.retentionDays). */
  retentionDays: number;
  /** Backups, exports and restore leftovers in DATA_DIR older than this many days are deleted (site.privacy.backupDays; copies.ts). */
  backupDays: number;
  /** The signed "Not spam" link each held message in the summary carries. */
  links: LeadLinks;
  /** The keys: read again each turn (a rotation elsewhere), and what no longer checks anything deleted. */
  ring: KeyRing;
  /** Where each service's leads go (delivery/routing.ts): a reminder goes to its route's recipients. */
  routing: Routing;
  metrics?: ContactMetrics;
  /** The reminders' clock (default: the database's). */
  clock?: Clock;
  /** The reminders' calendar and promise (default: the company's facts, app/config/site.ts). */
  facts?: Promised;
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
    const { HELD_SUMMARY_INTERVAL_MS, RETENTION_INTERVAL_MS, REMINDER_CHECK_MS } = this.parts.config;
    const every = Math.min(60_000, HELD_SUMMARY_INTERVAL_MS, RETENTION_INTERVAL_MS, REMINDER_CHECK_MS);
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
    const tasks = [
      () => this.refreshKeys(),
      () => this.summarizeHeld(),
      () => this.remindUntaken(),
      () => this.applyRetention(),
      async () => this.eraseCopies(),
    ];
    for (const task of tasks) {
      await task().catch((err: Error) => this.log.error({ err: { message: err.message } }, "housekeeping failed"));
    }
  }

  /**
   * Every turn, on every instance: delete the keys that no longer check anything — a retired link or
   * form key once what it signed has expired, and every address key but this month's (by the
   * database's clock) — then read the ring again, so a rotation reaches this instance within a turn.
   */
  async refreshKeys(): Promise<void> {
    const { db, ring, config } = this.parts;
    const now = await databaseNow(db);
    const deleted = await deleteExpiredKeys(db, {
      now,
      linkTtlMs: config.INQUIRY_LINK_DAYS * 86_400_000,
      formTtlMs: config.FORM_TOKEN_MAX_AGE_MS,
      month: monthOf(now),
    });
    if (deleted > 0) this.log.info({ deleted }, "keys past their use deleted");
    await ring.read(now);
  }

  /** The summary of held messages (review/held-summary.ts). */
  summarizeHeld(): Promise<boolean> {
    const { db, email, links, config } = this.parts;
    return sendHeldSummary({ db, email, links, intervalMs: config.HELD_SUMMARY_INTERVAL_MS, log: this.log });
  }

  /** At every turn, on every instance: its DATA_DIR's copies past the notice's backup period (copies.ts). */
  eraseCopies(now = Date.now()): string[] {
    const erased = eraseOldCopies(this.parts.config.dataDir, this.parts.backupDays, now);
    if (erased.length > 0) {
      this.log.info(
        { files: erased, backupDays: this.parts.backupDays },
        "retention: erased copies past the backup period",
      );
    }
    return erased;
  }

  /**
   * The reminders of leads nobody took within the reply promise, then the webhook's reports of leads
   * taken and reminded (review/reminders.ts); how many went.
   */
  async remindUntaken(): Promise<number> {
    const { db, email, webhook, routing, metrics, facts, clock = databaseNow } = this.parts;
    const parts = { db, email, webhook, routing, metrics, facts, now: await clock(db), log: this.log };
    return (await sendReminders(parts)) + (await sendReplyReports(parts));
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
