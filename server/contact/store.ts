import type { ContactInput } from "../../app/contact/schema.ts";
import type { Database, Sql } from "./db.ts";

/**
 * Inquiries and their email jobs. Every write that acknowledges a visitor happens in one transaction:
 * the inquiry, its outbox job and the idempotency answer are stored together or not at all.
 */

export type Source = "api" | "form";
export type JobStatus = "pending" | "sending" | "sent" | "failed";

export type NewInquiry = ContactInput & {
  id: string;
  receivedAt: number;
  page: string | null;
  userAgent: string | null;
  ipHash: string | null;
  source: Source;
  spam: boolean;
};

export type Answer = { status: number; body: Record<string, unknown> };
/** A stored answer for an idempotency key, with the fingerprint of the message it answered (null: stored before fingerprints). */
export type StoredAnswer = Answer & { fingerprint: string | null };

export type Job = {
  id: string;
  inquiryId: string;
  messageId: string;
  attempts: number;
  createdAt: number;
  inquiry: NewInquiry;
};

export type InquiryRecord = NewInquiry & {
  status: JobStatus | "spam";
  attempts: number;
  lastError: string | null;
  sentAt: number | null;
};

export type SaveResult =
  | { duplicate: true; previous: StoredAnswer }
  | { duplicate: false; answer: Answer; refused?: boolean };

const INQUIRY_COLUMNS =
  "i.id, i.received_at, i.name, i.email, i.company, i.service, i.message, i.page, i.user_agent, i.ip_hash, i.source, i.spam";

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
    opts: {
      answer: Answer;
      idempotencyKey?: string;
      /** What identifies the message for its idempotency key (a repeat with another message is refused). */
      fingerprint?: string;
      job?: { id: string; messageId: string };
      /** Checked inside the transaction (a rate limit): an answer here refuses, and nothing is stored. */
      guard?: () => Promise<Answer | null>;
    },
  ): Promise<SaveResult> {
    const { idempotencyKey: key, answer, job, guard } = opts;
    try {
      return await this.db.transaction<SaveResult>(async (tx) => {
        if (key) {
          const previous = await this.answerFor(key, tx);
          if (previous) return { duplicate: true, previous };
        }
        const refusal = guard ? await guard() : null;
        if (refusal) return { duplicate: false, answer: refusal, refused: true };
        await tx.query(
          `INSERT INTO inquiries (id, received_at, name, email, company, service, message, page, user_agent, ip_hash, source, spam)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
          ],
        );
        if (job) {
          await tx.query(
            `INSERT INTO email_jobs (id, inquiry_id, message_id, status, attempts, created_at, next_attempt_at)
             VALUES (?, ?, ?, 'pending', 0, ?, ?)`,
            [job.id, inquiry.id, job.messageId, inquiry.receivedAt, inquiry.receivedAt],
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
   * Claim up to `limit` jobs that are due, or whose previous claim expired (a worker died). On
   * PostgreSQL, FOR UPDATE SKIP LOCKED lets several workers claim at once without sharing a job; on
   * SQLite the transaction holds the write lock.
   */
  async claimDue(workerId: string, now: number, leaseMs: number, limit: number): Promise<Job[]> {
    const due = `(j.status = 'pending' AND j.next_attempt_at <= ?) OR (j.status = 'sending' AND j.claimed_until < ?)`;
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ id: string }>(
        `SELECT j.id FROM email_jobs j WHERE ${due} ORDER BY j.next_attempt_at LIMIT ?${
          tx.engine === "postgres" ? " FOR UPDATE SKIP LOCKED" : ""
        }`,
        [now, now, limit],
      );
      if (rows.length === 0) return [];
      const ids = rows.map((r) => r.id);
      const marks = ids.map(() => "?").join(", ");
      await tx.query(
        `UPDATE email_jobs SET status = 'sending', claimed_by = ?, claimed_until = ?, attempts = attempts + 1 WHERE id IN (${marks})`,
        [workerId, now + leaseMs, ...ids],
      );
      const jobs = await tx.query(
        `SELECT j.id AS job_id, j.message_id, j.attempts, j.created_at, ${INQUIRY_COLUMNS}
         FROM email_jobs j JOIN inquiries i ON i.id = j.inquiry_id WHERE j.id IN (${marks}) ORDER BY j.next_attempt_at`,
        ids,
      );
      return jobs.map((r) => ({
        id: String(r.job_id),
        inquiryId: String(r.id),
        messageId: String(r.message_id),
        attempts: Number(r.attempts),
        createdAt: Number(r.created_at),
        inquiry: toInquiry(r),
      }));
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
      `UPDATE email_jobs SET status = 'sent', sent_at = ?, claimed_by = NULL, claimed_until = NULL, last_error = NULL
       WHERE id = ? AND claimed_by = ? AND status = 'sending' RETURNING id`,
      [now, jobId, workerId],
    );
    return rows.length === 1;
  }

  async markRetry(jobId: string, workerId: string, nextAttemptAt: number, error: string): Promise<void> {
    await this.write(
      `UPDATE email_jobs SET status = 'pending', next_attempt_at = ?, last_error = ?, claimed_by = NULL, claimed_until = NULL
       WHERE id = ? AND claimed_by = ?`,
      [nextAttemptAt, error.slice(0, 1000), jobId, workerId],
    );
  }

  async markFailed(jobId: string, workerId: string, error: string): Promise<void> {
    await this.write(
      `UPDATE email_jobs SET status = 'failed', last_error = ?, claimed_by = NULL, claimed_until = NULL
       WHERE id = ? AND claimed_by = ?`,
      [error.slice(0, 1000), jobId, workerId],
    );
  }

  /** Give back every job a stopping worker still holds, to be sent by the next one at once. */
  async release(workerId: string): Promise<number> {
    const rows = await this.write(
      `UPDATE email_jobs SET status = 'pending', claimed_by = NULL, claimed_until = NULL, attempts = attempts - 1
       WHERE claimed_by = ? AND status = 'sending' RETURNING id`,
      [workerId],
    );
    return rows.length;
  }

  // ---------------------------------------------------------------- operator queries

  async list(opts: { since?: number } = {}): Promise<InquiryRecord[]> {
    const rows = await this.db.query(
      `SELECT ${INQUIRY_COLUMNS}, j.status, j.attempts, j.last_error, j.sent_at
       FROM inquiries i LEFT JOIN email_jobs j ON j.inquiry_id = i.id
       WHERE i.received_at >= ? ORDER BY i.received_at DESC, i.id`,
      [opts.since ?? 0],
    );
    return rows.map((r) => ({
      ...toInquiry(r),
      status: (r.status as JobStatus | null) ?? "spam",
      attempts: Number(r.attempts ?? 0),
      lastError: (r.last_error as string | null) ?? null,
      sentAt: r.sent_at == null ? null : Number(r.sent_at),
    }));
  }

  async get(id: string): Promise<InquiryRecord | null> {
    const all = await this.db.query(
      `SELECT ${INQUIRY_COLUMNS}, j.status, j.attempts, j.last_error, j.sent_at
       FROM inquiries i LEFT JOIN email_jobs j ON j.inquiry_id = i.id WHERE i.id = ?`,
      [id],
    );
    const r = all[0];
    if (!r) return null;
    return {
      ...toInquiry(r),
      status: (r.status as JobStatus | null) ?? "spam",
      attempts: Number(r.attempts ?? 0),
      lastError: (r.last_error as string | null) ?? null,
      sentAt: r.sent_at == null ? null : Number(r.sent_at),
    };
  }

  /** Failed jobs back to pending, due now, with a fresh 24-hour retry window. */
  async retryFailed(now: number): Promise<number> {
    const rows = await this.write(
      `UPDATE email_jobs SET status = 'pending', next_attempt_at = ?, created_at = ?, attempts = 0 WHERE status = 'failed' RETURNING id`,
      [now, now],
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
      "SELECT status, COUNT(*) AS n FROM email_jobs GROUP BY status",
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
}
