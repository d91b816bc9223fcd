import type { Database, Sql } from "./database.ts";
import { INQUIRY_COLUMNS, toInquiry } from "./records.ts";

/**
 * The outbox: the table `deliveries`, one row per inquiry and channel. Its worker
 * (delivery/worker.ts) claims what is due, then marks each delivery sent, retried or failed; the
 * operator puts failed ones back and reads what waits.
 */
/** Whether a delivery's inquiry is held (marked spam): such a delivery is neither started nor retried. */
const HELD = "EXISTS (SELECT 1 FROM inquiries i WHERE i.id = deliveries.inquiry_id AND i.held)";

/** What a worker claims with: its id, the channels it can deliver, and how long a claim lasts. */
export type Claimant = { workerId: string; channels: readonly string[]; leaseMs: number };

/**
 * Claim up to `limit` deliveries, of the channels this worker can deliver, whose claim by another
 * worker has ended (it died mid-send), then those that are due, oldest first. A delivery of a
 * channel this instance lacks waits for an instance that has it. On PostgreSQL, FOR UPDATE SKIP
 * LOCKED lets several workers claim at once without sharing a delivery; on SQLite the transaction
 * holds the write lock. A held inquiry's deliveries are never claimed (issue 37): none starts once
 * it is marked spam, and one whose worker died mid-send while it was marked is cancelled here.
 */
export async function claimDue(db: Database, { workerId, channels, leaseMs }: Claimant, now: number, limit: number) {
  const lock = db.engine === "postgres" ? "FOR UPDATE SKIP LOCKED" : "";
  const mine = `channel IN (${channels.map(() => "?").join(", ")}) AND NOT ${HELD}`;
  return db.transaction(async (tx) => {
    await tx.query(`DELETE FROM deliveries WHERE status = 'sending' AND claimed_until < ? AND ${HELD}`, [now]);
    const rows = await tx.query<{ id: string }>(
      `WITH ended AS (SELECT id FROM deliveries WHERE claimed_until < ? AND claimed_by <> ? AND ${mine}
                      ORDER BY claimed_until LIMIT ? ${lock}),
              due AS (SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND ${mine}
                      ORDER BY next_attempt_at LIMIT ? ${lock})
         SELECT id FROM ended UNION ALL SELECT id FROM due LIMIT ?`,
      [now, workerId, ...channels, limit, now, ...channels, limit, limit],
    );
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const marks = ids.map(() => "?").join(", ");
    await tx.query(
      `UPDATE deliveries SET status = 'sending', claimed_by = ?, claimed_until = ?, attempts = attempts + 1
         WHERE id IN (${marks})`,
      [workerId, now + leaseMs, ...ids],
    );
    const claimed = await tx.query(
      `SELECT d.id AS delivery_id, d.channel, d.message_id, d.target, d.attempts, d.created_at, ${INQUIRY_COLUMNS}
         FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id WHERE d.id IN (${marks}) ORDER BY d.next_attempt_at`,
      ids,
    );
    return claimed.map((r) => ({
      id: String(r.delivery_id),
      inquiryId: String(r.id),
      channel: String(r.channel),
      messageId: String(r.message_id),
      target: (r.target as string | null) ?? null,
      attempts: Number(r.attempts),
      createdAt: Number(r.created_at),
      inquiry: toInquiry(r),
    }));
  });
}

/** Hold a claim longer: a send still under way is never taken over while its worker lives. */
export async function extendClaim(db: Sql, id: string, workerId: string, until: number): Promise<void> {
  await db.query("UPDATE deliveries SET claimed_until = ? WHERE id = ? AND claimed_by = ?", [until, id, workerId]);
}

/** Mark a claimed delivery sent. False if its claim was lost (another worker took it over after the lease). */
export async function markSent(db: Sql, id: string, workerId: string, now: number, target: string | null) {
  const rows = await db.query(
    `UPDATE deliveries SET status = 'sent', sent_at = ?, target = ?, claimed_by = NULL, claimed_until = NULL, last_error = NULL
       WHERE id = ? AND claimed_by = ? RETURNING id`,
    [now, target, id, workerId],
  );
  return rows.length === 1;
}

/**
 * A claimed delivery that did not go, to be tried again at `nextAttemptAt`. False (nothing changed)
 * if its claim was lost or its inquiry was held meanwhile: then `cancelHeld`.
 */
export async function markRetry(db: Sql, id: string, workerId: string, nextAttemptAt: number, error: string) {
  const rows = await db.query(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = ?, last_error = ?, claimed_by = NULL, claimed_until = NULL
       WHERE id = ? AND claimed_by = ? AND NOT ${HELD} RETURNING id`,
    [nextAttemptAt, error.slice(0, 1000), id, workerId],
  );
  return rows.length === 1;
}

/** A claimed delivery that failed for good. False (nothing changed) as `markRetry`. */
export async function markFailed(db: Sql, id: string, workerId: string, error: string) {
  const rows = await db.query(
    `UPDATE deliveries SET status = 'failed', last_error = ?, claimed_by = NULL, claimed_until = NULL
       WHERE id = ? AND claimed_by = ? AND NOT ${HELD} RETURNING id`,
    [error.slice(0, 1000), id, workerId],
  );
  return rows.length === 1;
}

/**
 * The attempt under way when its inquiry was marked spam did not go: the delivery is cancelled, as
 * the waiting ones were (storage/inquiries.ts `markSpam`). True if it was.
 */
export async function cancelHeld(db: Sql, id: string, workerId: string): Promise<boolean> {
  const rows = await db.query(`DELETE FROM deliveries WHERE id = ? AND claimed_by = ? AND ${HELD} RETURNING id`, [
    id,
    workerId,
  ]);
  return rows.length === 1;
}

/** Give back every delivery a stopping worker still holds, to be sent by the next one at once. */
export async function giveBack(db: Sql, workerId: string): Promise<number> {
  const rows = await db.query(
    `UPDATE deliveries SET status = 'pending', claimed_by = NULL, claimed_until = NULL, attempts = attempts - 1
       WHERE claimed_by = ? AND status = 'sending' RETURNING id`,
    [workerId],
  );
  return rows.length;
}

/** Failed deliveries (of one channel, or all) back to pending, due now, with a fresh retry window. */
export async function retryFailed(db: Sql, now: number, channel?: string): Promise<number> {
  const rows = await db.query(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = ?, created_at = ?, attempts = 0
     WHERE status = 'failed'${channel ? " AND channel = ?" : ""} RETURNING id`,
    channel ? [now, now, channel] : [now, now],
  );
  return rows.length;
}

/** Deliveries not yet done, per channel, with the age of the oldest (for alerts and metrics). */
export async function pending(db: Sql, now: number) {
  const rows = await db.query<{ channel: string; n: number; oldest: number }>(
    `SELECT channel, COUNT(*) AS n, MIN(created_at) AS oldest FROM deliveries
     WHERE status IN ('pending', 'sending') GROUP BY channel`,
  );
  return rows.map((r) => ({ channel: r.channel, count: Number(r.n), oldestAgeMs: now - Number(r.oldest) }));
}
