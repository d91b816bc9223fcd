import type { ContactInput } from "../../app/contact/schema.ts";
import { Batcher } from "./batcher.ts";
import { type Database, type Sql, StorageUnavailableError } from "./db.ts";

/**
 * Inquiries and their email jobs. Every write that acknowledges a visitor happens in one transaction:
 * the inquiry, its outbox job and the idempotency answer are stored together or not at all.
 */

export type Source = "api" | "form";
export type JobStatus = "pending" | "sending" | "sent" | "failed";
export const CHANNELS = ["email", "webhook", "slack"] as const;
export type ChannelName = (typeof CHANNELS)[number];

export type NewInquiry = ContactInput & {
  id: string;
  receivedAt: number;
  page: string | null;
  userAgent: string | null;
  ipHash: string | null;
  source: Source;
  spam: boolean;
  /** Why it is held out of the inbox (spam: true), for the person who reviews it. */
  heldReason?: string | null;
  /** Hash of the normalized message, to notice the same message sent again. */
  messageHash?: string | null;
};

export type Answer = { status: number; body: Record<string, unknown> };
/** A stored answer for an idempotency key, with the fingerprint of the message it answered (null: stored before fingerprints). */
export type StoredAnswer = Answer & { fingerprint: string | null };

/** One delivery of one inquiry to one channel, claimed by a worker. */
export type Job = {
  id: string;
  inquiryId: string;
  channel: ChannelName;
  messageId: string;
  attempts: number;
  createdAt: number;
  inquiry: NewInquiry;
};

export type DeliveryRecord = {
  channel: ChannelName;
  status: JobStatus;
  attempts: number;
  lastError: string | null;
  sentAt: number | null;
};

export type InquiryRecord = NewInquiry & {
  /** All channels sent: sent; any failed: failed; else pending (sending counts as pending). Spam: spam. */
  status: JobStatus | "spam";
  /** The most attempts any channel took. */
  attempts: number;
  lastError: string | null;
  /** When the last channel was delivered, once all are. */
  sentAt: number | null;
  deliveries: DeliveryRecord[];
};

export type NewDelivery = { id: string; channel: ChannelName; messageId: string };

function summarize(inquiry: NewInquiry, deliveries: DeliveryRecord[]): InquiryRecord {
  const statuses = deliveries.map((d) => d.status);
  const status: InquiryRecord["status"] = inquiry.spam
    ? "spam"
    : statuses.includes("failed")
      ? "failed"
      : statuses.length > 0 && statuses.every((s) => s === "sent")
        ? "sent"
        : statuses.includes("sending")
          ? "sending"
          : "pending";
  const unsent = deliveries.filter((d) => d.status !== "sent");
  return {
    ...inquiry,
    status,
    attempts: Math.max(0, ...deliveries.map((d) => d.attempts)),
    lastError: unsent.find((d) => d.lastError)?.lastError ?? null,
    sentAt: status === "sent" ? Math.max(...deliveries.map((d) => d.sentAt ?? 0)) : null,
    deliveries,
  };
}

/** What is stored with an inquiry besides itself. */
export type SaveFields = {
  answer: Answer;
  idempotencyKey?: string;
  /** What identifies the message for its idempotency key (a repeat with another message is refused). */
  fingerprint?: string;
  deliveries?: NewDelivery[];
};

export type SaveResult =
  | { duplicate: true; previous: StoredAnswer }
  | { duplicate: false; answer: Answer }
  /** Over a rate limit: nothing stored; the limit frees up in `retryAfterMs`. */
  | { duplicate: false; refused: true; retryAfterMs: number };

export type AtOnceOptions = SaveFields & {
  limits: Array<{ key: string; points: number; durationMs: number }>;
  now: number;
};
export type AtOnceResult = SaveResult;
type SavedRow = {
  prior?: { status: number; body: string; fingerprint: string | null };
  blocked_until?: number;
  stored?: boolean;
};

const DELIVERY_COLUMNS = "d.channel, d.status, d.attempts, d.last_error, d.sent_at";

function toDelivery(r: Record<string, unknown>): DeliveryRecord {
  return {
    channel: r.channel as ChannelName,
    status: r.status as JobStatus,
    attempts: Number(r.attempts ?? 0),
    lastError: (r.last_error as string | null) ?? null,
    sentAt: r.sent_at == null ? null : Number(r.sent_at),
  };
}

const INQUIRY_COLUMNS =
  "i.id, i.received_at, i.name, i.email, i.company, i.service, i.message, i.page, i.user_agent, i.ip_hash, i.source, i.spam, i.held_reason";

function toInquiry(r: Record<string, unknown>): NewInquiry {
  return {
    id: String(r.id),
    receivedAt: Number(r.received_at),
    name: String(r.name),
    email: String(r.email),
    company: String(r.company),
    service: String(r.service),
    message: String(r.message),
    page: (r.page as string | null) ?? null,
    userAgent: (r.user_agent as string | null) ?? null,
    ipHash: (r.ip_hash as string | null) ?? null,
    source: r.source as Source,
    spam: r.spam === true || r.spam === 1,
    heldReason: (r.held_reason as string | null) ?? null,
  };
}

export class Store {
  readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** The stored answer for an idempotency key, if that key was used before. */
  async answerFor(key: string, sql: Sql = this.db): Promise<StoredAnswer | null> {
    const [row] = await sql.query<{ status: number; body: string; fingerprint: string | null }>(
      "SELECT status, body, fingerprint FROM idempotency_keys WHERE key = ?",
      [key],
    );
    return row
      ? { status: Number(row.status), body: JSON.parse(row.body), fingerprint: row.fingerprint ?? null }
      : null;
  }

  /**
   * Store an inquiry, its email job (none for spam) and the answer for its idempotency key, in one
   * transaction. If the key was used before, nothing new is stored and the first answer comes back.
   */
  async save(
    inquiry: NewInquiry,
    opts: SaveFields & {
      /** Checked inside the transaction (a rate limit): an answer here refuses, and nothing is stored. */
      guard?: () => Promise<{ retryAfterMs: number } | null>;
    },
  ): Promise<SaveResult> {
    const { idempotencyKey: key, answer, deliveries = [], guard } = opts;
    try {
      return await this.db.transaction<SaveResult>(async (tx) => {
        if (key) {
          const previous = await this.answerFor(key, tx);
          if (previous) return { duplicate: true, previous };
        }
        const refusal = guard ? await guard() : null;
        if (refusal) return { duplicate: false, refused: true, retryAfterMs: refusal.retryAfterMs };
        await tx.query(
          `INSERT INTO inquiries (id, received_at, name, email, company, service, message, page, user_agent, ip_hash, source, spam,
                                  held_reason, message_hash)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            inquiry.id,
            inquiry.receivedAt,
            inquiry.name,
            inquiry.email,
            inquiry.company,
            inquiry.service,
            inquiry.message,
            inquiry.page,
            inquiry.userAgent,
            inquiry.ipHash,
            inquiry.source,
            inquiry.spam,
            inquiry.heldReason ?? null,
            inquiry.messageHash ?? null,
          ],
        );
        for (const d of deliveries) {
          await tx.query(
            `INSERT INTO deliveries (id, inquiry_id, channel, message_id, status, attempts, created_at, next_attempt_at)
             VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
            [d.id, inquiry.id, d.channel, d.messageId, inquiry.receivedAt, inquiry.receivedAt],
          );
        }
        if (key) {
          await tx.query(
            "INSERT INTO idempotency_keys (key, inquiry_id, status, body, created_at, fingerprint) VALUES (?, ?, ?, ?, ?, ?)",
            [key, inquiry.id, answer.status, JSON.stringify(answer.body), inquiry.receivedAt, opts.fingerprint ?? null],
          );
        }
        return { duplicate: false, answer };
      });
    } catch (e) {
      // Two requests with one key at the same moment (PostgreSQL): the loser reads the winner's answer.
      if (key) {
        const previous = await this.answerFor(key).catch(() => null);
        if (previous) return { duplicate: true, previous };
      }
      throw e;
    }
  }

  /**
   * PostgreSQL: the whole submission in one statement, batched with the submissions that arrive while
   * the previous batch is committing (one round trip and one commit for all of them), through the
   * function `save_submissions` (migration 005). Per submission, in order: an earlier answer for the
   * idempotency key wins (nothing is counted or stored); else every rate-limit counter is taken (as
   * rate-limiter-flexible does, on its table) and, only if none is over its limit, the inquiry, its
   * deliveries and its answer are inserted. No answer goes out before its batch has committed.
   * A batch that fails as a whole (two requests with one key in two batches at once, a deadlock) is
   * saved again one submission at a time; an outage fails each of its submissions (503).
   */
  saveAtOnce(inquiry: NewInquiry, opts: AtOnceOptions): Promise<AtOnceResult> {
    this.submissions ??= new Batcher((batch) => this.saveBatch(batch));
    return this.submissions.add({ inquiry, opts });
  }

  private submissions: Batcher<{ inquiry: NewInquiry; opts: AtOnceOptions }, AtOnceResult> | null = null;

  private async saveBatch(batch: Array<{ inquiry: NewInquiry; opts: AtOnceOptions }>): Promise<AtOnceResult[]> {
    try {
      return await this.runSaveSubmissions(batch);
    } catch (e) {
      if (e instanceof StorageUnavailableError) throw e;
      const [only] = batch;
      if (only && batch.length === 1) return [await this.saveAlone(only, e)];
      // One at a time, each with its own outcome.
      return Promise.all(
        batch.map((item) =>
          this.runSaveSubmissions([item]).then(
            (r) => r[0] as AtOnceResult,
            (err) => this.saveAlone(item, err),
          ),
        ),
      );
    }
  }

  /** A submission whose statement failed: if its key was taken at the same moment, the winner's answer. */
  private async saveAlone(item: { inquiry: NewInquiry; opts: AtOnceOptions }, error: unknown): Promise<AtOnceResult> {
    const key = item.opts.idempotencyKey;
    if (key && (error as { code?: string }).code === "23505") {
      const previous = await this.answerFor(key).catch(() => null);
      if (previous) return { duplicate: true, previous };
    }
    throw error;
  }

  private async runSaveSubmissions(
    batch: Array<{ inquiry: NewInquiry; opts: AtOnceOptions }>,
  ): Promise<AtOnceResult[]> {
    const payload = batch.map(({ inquiry: i, opts: o }) => ({
      key: o.idempotencyKey ?? null,
      fingerprint: o.fingerprint ?? null,
      answer_status: o.answer.status,
      answer_body: JSON.stringify(o.answer.body),
      now: o.now,
      limits: o.limits.map((l) => ({ key: l.key, max: l.points, expire: o.now + l.durationMs })),
      deliveries: (o.deliveries ?? []).map((d) => ({ id: d.id, channel: d.channel, message_id: d.messageId })),
      inquiry: {
        id: i.id,
        received_at: i.receivedAt,
        name: i.name,
        email: i.email,
        company: i.company,
        service: i.service,
        message: i.message,
        page: i.page,
        user_agent: i.userAgent,
        ip_hash: i.ipHash,
        source: i.source,
        spam: i.spam,
        held_reason: i.heldReason ?? null,
        message_hash: i.messageHash ?? null,
      },
    }));
    const [row] = await this.db.query<{ results: SavedRow[] }>("SELECT save_submissions(?::jsonb) AS results", [
      JSON.stringify(payload),
    ]);
    const results = row?.results ?? [];
    if (results.length !== batch.length) throw new Error("save_submissions answered for another number of submissions");
    return results.map((r, n) => {
      const { opts } = batch[n] as { opts: AtOnceOptions };
      if (r.prior) {
        const { status, body, fingerprint } = r.prior;
        return {
          duplicate: true,
          previous: { status: Number(status), body: JSON.parse(body), fingerprint: fingerprint ?? null },
        };
      }
      if (!r.stored) {
        return {
          duplicate: false,
          refused: true,
          retryAfterMs: Math.max(0, Number(r.blocked_until ?? opts.now) - opts.now),
        };
      }
      return { duplicate: false, answer: opts.answer };
    });
  }

  /**
   * Claim up to `limit` jobs that are due, or whose previous claim expired (a worker died). On
   * PostgreSQL, one statement with FOR UPDATE SKIP LOCKED lets several workers claim at once
   * without sharing a job; on SQLite the transaction holds the write lock.
   */
  async claimDue(workerId: string, now: number, leaseMs: number, limit: number): Promise<Job[]> {
    const due = `(j.status = 'pending' AND j.next_attempt_at <= ?) OR (j.status = 'sending' AND j.claimed_until < ?)`;
    const toJob = (r: Record<string, unknown>): Job => ({
      id: String(r.job_id),
      inquiryId: String(r.id),
      channel: r.channel as ChannelName,
      messageId: String(r.message_id),
      attempts: Number(r.attempts),
      createdAt: Number(r.created_at),
      inquiry: toInquiry(r),
    });
    if (this.db.engine === "postgres") {
      // One statement: pick (skipping rows another worker holds), mark and read back.
      const rows = await this.db.query(
        `WITH picked AS (
           SELECT j.id FROM deliveries j WHERE ${due} ORDER BY j.next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED)
         UPDATE deliveries j SET status = 'sending', claimed_by = ?, claimed_until = ?, attempts = j.attempts + 1
         FROM picked, inquiries i WHERE j.id = picked.id AND i.id = j.inquiry_id
         RETURNING j.id AS job_id, j.channel, j.message_id, j.attempts, j.created_at, ${INQUIRY_COLUMNS}`,
        [now, now, limit, workerId, now + leaseMs],
      );
      return rows.map(toJob);
    }
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ id: string }>(
        `SELECT j.id FROM deliveries j WHERE ${due} ORDER BY j.next_attempt_at LIMIT ?`,
        [now, now, limit],
      );
      if (rows.length === 0) return [];
      const ids = rows.map((r) => r.id);
      const marks = ids.map(() => "?").join(", ");
      await tx.query(
        `UPDATE deliveries SET status = 'sending', claimed_by = ?, claimed_until = ?, attempts = attempts + 1 WHERE id IN (${marks})`,
        [workerId, now + leaseMs, ...ids],
      );
      const jobs = await tx.query(
        `SELECT j.id AS job_id, j.channel, j.message_id, j.attempts, j.created_at, ${INQUIRY_COLUMNS}
         FROM deliveries j JOIN inquiries i ON i.id = j.inquiry_id WHERE j.id IN (${marks}) ORDER BY j.next_attempt_at`,
        ids,
      );
      return jobs.map(toJob);
    });
  }

  /** One write outside a caller's transaction: on SQLite it joins the group commit (one fsync for many). */
  private write(sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
    return this.db.engine === "sqlite"
      ? this.db.transaction((tx) => tx.query(sql, params))
      : this.db.query(sql, params);
  }

  /** Mark a claimed job sent. False if the claim was lost (another worker took it over). */
  async markSent(jobId: string, workerId: string, now: number): Promise<boolean> {
    const rows = await this.write(
      `UPDATE deliveries SET status = 'sent', sent_at = ?, claimed_by = NULL, claimed_until = NULL, last_error = NULL
       WHERE id = ? AND claimed_by = ? AND status = 'sending' RETURNING id`,
      [now, jobId, workerId],
    );
    return rows.length === 1;
  }

  async markRetry(jobId: string, workerId: string, nextAttemptAt: number, error: string): Promise<void> {
    await this.write(
      `UPDATE deliveries SET status = 'pending', next_attempt_at = ?, last_error = ?, claimed_by = NULL, claimed_until = NULL
       WHERE id = ? AND claimed_by = ?`,
      [nextAttemptAt, error.slice(0, 1000), jobId, workerId],
    );
  }

  async markFailed(jobId: string, workerId: string, error: string): Promise<void> {
    await this.write(
      `UPDATE deliveries SET status = 'failed', last_error = ?, claimed_by = NULL, claimed_until = NULL
       WHERE id = ? AND claimed_by = ?`,
      [error.slice(0, 1000), jobId, workerId],
    );
  }

  /** Give back every job a stopping worker still holds, to be sent by the next one at once. */
  async release(workerId: string): Promise<number> {
    const rows = await this.write(
      `UPDATE deliveries SET status = 'pending', claimed_by = NULL, claimed_until = NULL, attempts = attempts - 1
       WHERE claimed_by = ? AND status = 'sending' RETURNING id`,
      [workerId],
    );
    return rows.length;
  }

  // ---------------------------------------------------------------- operator queries

  async list(opts: { since?: number } = {}): Promise<InquiryRecord[]> {
    const since = opts.since ?? 0;
    const rows = await this.db.query(
      `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE i.received_at >= ? ORDER BY i.received_at DESC, i.id`,
      [since],
    );
    const deliveries = await this.db.query(
      `SELECT d.inquiry_id, ${DELIVERY_COLUMNS} FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id
       WHERE i.received_at >= ? ORDER BY d.channel`,
      [since],
    );
    const byInquiry = new Map<string, DeliveryRecord[]>();
    for (const d of deliveries) {
      const list = byInquiry.get(String(d.inquiry_id)) ?? [];
      list.push(toDelivery(d));
      byInquiry.set(String(d.inquiry_id), list);
    }
    return rows.map((r) => summarize(toInquiry(r), byInquiry.get(String(r.id)) ?? []));
  }

  async get(id: string): Promise<InquiryRecord | null> {
    const [r] = await this.db.query(`SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE i.id = ?`, [id]);
    if (!r) return null;
    const deliveries = await this.db.query(
      `SELECT ${DELIVERY_COLUMNS} FROM deliveries d WHERE d.inquiry_id = ? ORDER BY d.channel`,
      [id],
    );
    return summarize(toInquiry(r), deliveries.map(toDelivery));
  }

  /** Failed deliveries (of one channel, or all) back to pending, due now, with a fresh retry window. */
  async retryFailed(now: number, channel?: ChannelName): Promise<number> {
    const rows = await this.write(
      `UPDATE deliveries SET status = 'pending', next_attempt_at = ?, created_at = ?, attempts = 0
       WHERE status = 'failed'${channel ? " AND channel = ?" : ""} RETURNING id`,
      channel ? [now, now, channel] : [now, now],
    );
    return rows.length;
  }

  /** Delete inquiries received before `before` (their jobs and idempotency answers go with them). */
  async purge(before: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      await tx.query("DELETE FROM idempotency_keys WHERE created_at < ?", [before]);
      const rows = await tx.query("DELETE FROM inquiries WHERE received_at < ? RETURNING id", [before]);
      return rows.length;
    });
  }

  async counts(): Promise<Record<JobStatus | "inquiries" | "spam", number>> {
    const [i] = await this.db.query<{ n: number; spam: number }>(
      "SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN spam THEN 1 ELSE 0 END), 0) AS spam FROM inquiries",
    );
    const jobs = await this.db.query<{ status: JobStatus; n: number }>(
      "SELECT status, COUNT(*) AS n FROM deliveries GROUP BY status",
    );
    const out = {
      inquiries: Number(i?.n ?? 0),
      spam: Number(i?.spam ?? 0),
      pending: 0,
      sending: 0,
      sent: 0,
      failed: 0,
    };
    for (const j of jobs) out[j.status] = Number(j.n);
    return out;
  }

  /** Deliveries not yet done, per channel, with the age of the oldest (for alerts and metrics). */
  async pending(now: number): Promise<Array<{ channel: ChannelName; count: number; oldestAgeMs: number }>> {
    const rows = await this.db.query<{ channel: ChannelName; n: number; oldest: number }>(
      `SELECT channel, COUNT(*) AS n, MIN(created_at) AS oldest FROM deliveries
       WHERE status IN ('pending', 'sending') GROUP BY channel`,
    );
    return rows.map((r) => ({ channel: r.channel, count: Number(r.n), oldestAgeMs: now - Number(r.oldest) }));
  }

  /** Inquiries by outcome and deliveries by channel and status, received since `since`. */
  async stats(since: number): Promise<{
    inquiries: { total: number; spam: number };
    deliveries: Array<{ channel: ChannelName; status: JobStatus; count: number }>;
  }> {
    const [i] = await this.db.query<{ n: number; spam: number }>(
      `SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN spam THEN 1 ELSE 0 END), 0) AS spam
       FROM inquiries WHERE received_at >= ?`,
      [since],
    );
    const rows = await this.db.query<{ channel: ChannelName; status: JobStatus; n: number }>(
      `SELECT d.channel, d.status, COUNT(*) AS n FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id
       WHERE i.received_at >= ? GROUP BY d.channel, d.status ORDER BY d.channel, d.status`,
      [since],
    );
    return {
      inquiries: { total: Number(i?.n ?? 0), spam: Number(i?.spam ?? 0) },
      deliveries: rows.map((r) => ({ channel: r.channel, status: r.status, count: Number(r.n) })),
    };
  }

  // ---------------------------------------------------------------- held inquiries (spam)

  /** Whether the same message (by hash) was received since `since`. */
  async seenMessage(messageHash: string, since: number): Promise<boolean> {
    const rows = await this.db.query(
      "SELECT 1 AS x FROM inquiries WHERE message_hash = ? AND received_at >= ? LIMIT 1",
      [messageHash, since],
    );
    return rows.length > 0;
  }

  /** Inquiries held out of the inbox, newest first. */
  async listHeld(since = 0): Promise<NewInquiry[]> {
    const rows = await this.db.query(
      `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE i.spam AND i.received_at >= ? ORDER BY i.received_at DESC, i.id`,
      [since],
    );
    return rows.map(toInquiry);
  }

  /**
   * Release a held inquiry: a normal lead from now on, delivered to every configured channel.
   * False if there is no held inquiry with that id.
   */
  async releaseHeld(id: string, deliveries: NewDelivery[], now: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const released = await tx.query(
        "UPDATE inquiries SET spam = ?, held_reason = NULL WHERE id = ? AND spam RETURNING id",
        [false, id],
      );
      if (released.length === 0) return false;
      for (const d of deliveries) {
        await tx.query(
          `INSERT INTO deliveries (id, inquiry_id, channel, message_id, status, attempts, created_at, next_attempt_at)
           VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
          [d.id, id, d.channel, d.messageId, now, now],
        );
      }
      return true;
    });
  }

  /**
   * Take the turn to send the daily summary of held inquiries: true for exactly one caller (one
   * worker among several instances) once `intervalMs` has passed since the last one.
   */
  async claimHeldSummary(now: number, intervalMs: number): Promise<{ since: number } | null> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<{ value: string }>("SELECT value FROM settings WHERE name = 'held_summary_at'");
      const last = Number(row?.value ?? 0);
      if (now - last < intervalMs) return null;
      const updated = await tx.query(
        "UPDATE settings SET value = ? WHERE name = 'held_summary_at' AND value = ? RETURNING name",
        [String(now), String(last)],
      );
      return updated.length === 1 ? { since: last || now - intervalMs } : null;
    });
  }
}
