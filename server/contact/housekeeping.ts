import { join } from "node:path";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import { eraseOldCopies } from "./copies.ts";
import type { Channel } from "./delivery/channel.ts";
import { erase } from "./erasure.ts";
import type { LeadLinks } from "./lead-links.ts";
import type { Database } from "./storage/database.ts";
import { listHeld } from "./storage/inquiries.ts";
import { claimTurn, readSetting, writeSetting } from "./storage/settings.ts";

/**
 * The contact pipeline's scheduled work, apart from delivery (delivery/worker.ts only delivers): the
 * summary of held messages, and the retention pass that keeps the privacy notice's promise. Each
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
  /** Backups, exports and restore leftovers in DATA_DIR older than this many days are deleted (site.privacy.backupDays; copies.ts). */
  backupDays: number;
  /** The signed "Not spam — deliver it" link each held message in the summary carries. */
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
    for (const task of [() => this.summarizeHeld(), () => this.applyRetention(), async () => this.eraseCopies()]) {
      await task().catch((err: Error) => this.log.error({ err: { message: err.message } }, "housekeeping failed"));
    }
  }

  /**
   * At most once per interval across every instance: one email of what was held as suspected spam
   * since the last summary, so that a person held by mistake is noticed. Nothing held: nothing sent.
   */
  async summarizeHeld(): Promise<boolean> {
    const { db, email } = this.parts;
    if (!email) return false;
    const interval = this.parts.config.HELD_SUMMARY_INTERVAL_MS;
    // One instance tries at a time (a short claim); the summary is marked sent only once it is, so a
    // failed one is tried again at the next claim and no held message goes unsummarized.
    const turn = await claimTurn(db, "held_summary_claim", Math.min(interval, 300_000));
    if (!turn) return false;
    const sentAt = Number((await readSetting(db, "held_summary_at")) ?? 0);
    if (sentAt <= turn.now && turn.now - sentAt < interval) return false;
    // Since the last summary; never sent: everything held so far; stamped ahead (a clock that ran ahead): one interval.
    const since = sentAt <= turn.now ? sentAt : turn.now - interval;
    const held = await listHeld(db, since);
    if (held.length === 0) return false;
    const listed = held.slice(0, 20);
    const lines = listed.flatMap((i) => [
      `- ${i.name} <${i.email}>: ${i.heldReason ?? "held"} (${i.id})`,
      ...this.parts.links.for(i, turn.now).map((l) => `  ${l.label}: ${l.url}`),
    ]);
    if (held.length > 20) lines.push(`- and ${held.length - 20} more`);
    const from = since > 0 ? ` since ${new Date(since).toISOString().slice(0, 16).replace("T", " ")} UTC` : "";
    const text = [
      `${held.length} message(s) were held as suspected spam${since > 0 ? ` since ${new Date(since).toISOString()}` : ""}:`,
      ...lines,
      "",
      "A message a person sent: open its link and press the button; it is delivered as a new lead would be, and the filter learns from it. The link works for the days INQUIRY_LINK_DAYS says.",
    ].join("\n");
    try {
      await email.notify(
        `Held as spam: ${held.length} message(s)${from}`,
        text,
        listed.map((i) => i.id),
      );
      await writeSetting(db, "held_summary_at", String(turn.now));
      this.log.info({ held: held.length }, "held-messages summary sent");
      return true;
    } catch (err) {
      this.log.error({ err: { message: (err as Error).message } }, "could not send the held-messages summary");
      return false;
    }
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
