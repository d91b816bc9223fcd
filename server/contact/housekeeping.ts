import { join } from "node:path";
import type { Logger } from "pino";
import { refreshFeeds } from "../booking/feeds.ts";
import { remindVisitors } from "../booking/reminder.ts";
import type { Config } from "../config.ts";
import { DAY_MS } from "../time.ts";
import type { Routing } from "./delivery/routing.ts";
import { erase, eraseOldCopies } from "./erasure.ts";
import type { KeyRing } from "./keys.ts";
import { queueDigest } from "./review/digest.ts";
import type { LeadLinks } from "./review/links.ts";
import type { Promised } from "./review/promise.ts";
import { type FigureHolder, refreshFigure, storedFigure } from "./review/public-figure.ts";
import { queueWeeklyNumbers } from "./review/weekly.ts";
import type { Database } from "./storage/database.ts";
import { deleteExpiredKeys } from "./storage/keys.ts";

/**
 * The scheduled work on each instance apart from sending: the keys read again and pruned, the
 * morning digest, the visitors' reminders and the weekly numbers queued (each claimed once, whatever the instances),
 * and the retention pass, which every instance runs (erasing what is past its date twice erases
 * nothing more).
 */

type Parts = {
  db: Database;
  log: Logger;
  config: Config;
  retentionDays: number;
  backupDays: number;
  ring: KeyRing;
  links: LeadLinks;
  routing: Routing;
  worker: { nudge(): void };
  clock?: () => number;
  facts?: Promised;
  figure?: FigureHolder;
};

export type Housekeeping = ReturnType<typeof createHousekeeping>;

export function createHousekeeping(parts: Parts) {
  const { db, ring, config, worker, retentionDays, backupDays, facts, links, routing } = parts;
  const log = parts.log.child({ task: "housekeeping" });
  // One clock for every task of a turn (a test's, else the process's).
  const clock = parts.clock ?? Date.now;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  // Aborted at stop: a calendar being fetched or read ends with it.
  const stopping = new AbortController();
  let retainedAt = 0;

  const self = {
    start(): void {
      const every = Math.min(config.HOUSEKEEPING_TURN_MS, config.RETENTION_INTERVAL_MS);
      const tick = () => {
        if (!stopped) running = turn().finally(() => setTimeout(tick, every).unref());
      };
      tick();
    },

    async stop(): Promise<void> {
      stopped = true;
      stopping.abort();
      await running;
    },

    async digest(now = clock()): Promise<boolean> {
      const queued = await queueDigest(db, now, facts);
      if (queued) worker.nudge();
      return queued;
    },

    /** The visitors' reminders due `now`, queued: how many. */
    async remind(now = clock()): Promise<number> {
      const queued = await remindVisitors(db, { config, links, routing }, log, now, facts);
      if (queued > 0) worker.nudge();
      return queued;
    },

    /** The public figure computed once an office day (one instance), then read by this one. */
    async figure(now = clock()) {
      if (config.SCHEDULE.includes("figure") && (await refreshFigure(db, now, facts)))
        log.info("reply promise: public figure computed");
      parts.figure?.set(await storedFigure(db));
    },

    async weeklyNumbers(now = clock()): Promise<boolean> {
      const queued = await queueWeeklyNumbers(db, now, config.WEEKLY_FIGURES_TO, facts);
      if (queued) worker.nudge();
      return queued;
    },

    async applyRetention(now = clock()) {
      if (retainedAt <= now && now - retainedAt < config.RETENTION_INTERVAL_MS) return null;
      retainedAt = now;
      const before = now - retentionDays * DAY_MS;
      const result = await erase(
        db,
        join(config.dataDir, "mail"),
        { before },
        { waitMs: config.OUTBOX_LEASE_MS, now, calendar: { config, routing } },
      );
      if (result.pendingCut > 0)
        log.warn(
          { ...result, retentionDays },
          "retention: erased old inquiries, some with a delivery still waiting",
        );
      else
        log.info(
          { ...result, retentionDays },
          "retention: erased what is past the privacy notice's period",
        );
      return result;
    },
  };

  async function turn(): Promise<void> {
    const now = clock();
    const tasks = [
      async () => {
        const ttlMs = {
          links: config.INQUIRY_LINK_DAYS * DAY_MS,
          form: config.FORM_TOKEN_MAX_AGE_MS,
        };
        const deleted = await deleteExpiredKeys(db, now, ttlMs);
        if (deleted > 0) log.info({ deleted }, "keys past their use deleted");
        await ring.read(now);
      },
      ...(config.SCHEDULE.includes("digest") ? [() => self.digest(now)] : []),
      ...(config.SCHEDULE.includes("booking-reminders") ? [() => self.remind(now)] : []),
      ...(config.SCHEDULE.includes("weekly-numbers") ? [() => self.weeklyNumbers(now)] : []),
      () => self.figure(now),
      ...(config.SCHEDULE.includes("retention")
        ? [
            () => self.applyRetention(now),
            async () => {
              const files = eraseOldCopies(config.dataDir, backupDays, now);
              if (files.length > 0)
                log.info({ files, backupDays }, "retention: erased copies past the backup period");
            },
          ]
        : []),
      () => refreshFeeds(db, config, log, now, stopping.signal),
    ];
    for (const task of tasks) {
      await task().catch((err: Error) => log.error({ err }, "housekeeping failed"));
    }
  }

  return self;
}
