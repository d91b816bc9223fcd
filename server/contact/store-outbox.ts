import type { Database } from "./db.ts";
import type { ChannelName, Job } from "./store.ts";
import { INQUIRY_COLUMNS, toInquiry, writeOnce } from "./store-rows.ts";

/** The outbox as its workers see it: claim what is due, then mark each delivery sent, retried or failed. */
export class DeliveryQueue {
  readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }
  /**
   * Claim up to `limit` jobs whose previous claim expired (a worker died), then that are due, oldest
   * first. On PostgreSQL, one statement with FOR UPDATE SKIP LOCKED lets several workers claim at once
   * without sharing a job; on SQLite the transaction holds the write lock. Each kind is its own range
   * scan that stops at `limit` (ended leases: deliveries_claimed; due: deliveries_due, status then
   * time), so a claim costs the same whatever the backlog: one scan with OR sorted every pending row
   * each time (with 15,000 pending, 3.7 ms a claim on PostgreSQL and 1.1 ms on SQLite, against 0.26 ms
   * and 0.02 ms).
   */
  async claimDue(workerId: string, now: number, leaseMs: number, limit: number): Promise<Job[]> {
    // A claim is held exactly while claimed_until is set: the partial index deliveries_claimed (migration 008).
    const expired = `SELECT j.id FROM deliveries j WHERE j.claimed_until < ? ORDER BY j.claimed_until LIMIT ?`;
    const due = `SELECT j.id FROM deliveries j WHERE j.status = 'pending' AND j.next_attempt_at <= ? ORDER BY j.next_attempt_at LIMIT ?`;
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
        `WITH expired AS (${expired} FOR UPDATE SKIP LOCKED), due AS (${due} FOR UPDATE SKIP LOCKED),
              picked AS (SELECT id FROM expired UNION ALL SELECT id FROM due LIMIT ?)
         UPDATE deliveries j SET status = 'sending', claimed_by = ?, claimed_until = ?, attempts = j.attempts + 1
         FROM picked, inquiries i WHERE j.id = picked.id AND i.id = j.inquiry_id
         RETURNING j.id AS job_id, j.channel, j.message_id, j.attempts, j.created_at, ${INQUIRY_COLUMNS}`,
        [now, limit, now, limit, limit, workerId, now + leaseMs],
      );
      return rows.map(toJob);
    }
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ id: string }>(
        `SELECT id FROM (${expired}) UNION ALL SELECT id FROM (${due}) LIMIT ?`,
        [now, limit, now, limit, limit],
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

  /**
   * Mark claimed jobs sent, in one statement. Returns those marked: a job whose claim was lost
   * (another worker took it over after the lease) is not. Found by id and claimant only (claimed_by
   * is set exactly while a job is 'sending'): with `status = 'sending'` PostgreSQL chose to read
   * every 'sending' entry of deliveries_due, dead versions included (0.6-0.7 ms for 2-5 jobs, against
   * 0.08 ms for one by id).
   */
  async markSent(jobIds: string[], workerId: string, now: number): Promise<Set<string>> {
    if (jobIds.length === 0) return new Set();
    const rows = await writeOnce(
      this.db,
      `UPDATE deliveries SET status = 'sent', sent_at = ?, claimed_by = NULL, claimed_until = NULL, last_error = NULL
       WHERE id IN (${jobIds.map(() => "?").join(", ")}) AND claimed_by = ? RETURNING id`,
      [now, ...jobIds, workerId],
    );
    return new Set(rows.map((r) => String(r.id)));
  }

  async markRetry(jobId: string, workerId: string, nextAttemptAt: number, error: string): Promise<void> {
    await writeOnce(
      this.db,
      `UPDATE deliveries SET status = 'pending', next_attempt_at = ?, last_error = ?, claimed_by = NULL, claimed_until = NULL
       WHERE id = ? AND claimed_by = ?`,
      [nextAttemptAt, error.slice(0, 1000), jobId, workerId],
    );
  }

  async markFailed(jobId: string, workerId: string, error: string): Promise<void> {
    await writeOnce(
      this.db,
      `UPDATE deliveries SET status = 'failed', last_error = ?, claimed_by = NULL, claimed_until = NULL
       WHERE id = ? AND claimed_by = ?`,
      [error.slice(0, 1000), jobId, workerId],
    );
  }

  /** Give back every job a stopping worker still holds, to be sent by the next one at once. */
  async release(workerId: string): Promise<number> {
    const rows = await writeOnce(
      this.db,
      `UPDATE deliveries SET status = 'pending', claimed_by = NULL, claimed_until = NULL, attempts = attempts - 1
       WHERE claimed_by = ? AND status = 'sending' RETURNING id`,
      [workerId],
    );
    return rows.length;
  }
}
