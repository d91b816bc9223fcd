import type { Database, Sql } from "./database.ts";
import { type Delivery, INQUIRY_COLUMNS, type NewDelivery, toInquiry } from "./records.ts";

/**
 * The outbox, table `deliveries`: everything the server sends, and its one way of making sure one
 * instance does a thing: a worker claims what is due for a lease, then settles it; a dead worker's
 * claim is taken over when its lease ends. A held inquiry's deliveries are never claimed (issue 37).
 */

const HELD = "EXISTS (SELECT 1 FROM inquiries i WHERE i.id = deliveries.inquiry_id AND i.held)";

type Claimant = { workerId: string; channels: readonly string[]; leaseMs: number };

export async function claimDue(
  db: Database,
  { workerId, channels, leaseMs }: Claimant,
  now: number,
  limit: number,
) {
  // SKIP LOCKED: on PostgreSQL several workers claim at once without sharing a delivery (on SQLite
  // the transaction holds the write lock). A channel this instance lacks waits for one that has it.
  const lock = db.engine === "postgres" ? "FOR UPDATE SKIP LOCKED" : "";
  const mine = `channel IN (${channels.map(() => "?").join(", ")}) AND NOT ${HELD}`;
  return db.transaction(async (tx) => {
    // A send whose worker died while its inquiry was marked spam is cancelled, not taken over.
    await tx.query(
      `DELETE FROM deliveries WHERE status = 'sending' AND claimed_until < ? AND ${HELD}`,
      [now],
    );
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
    const claimed = await tx.query<Omit<Delivery, "inquiry">>(
      `SELECT id, inquiry_id AS "inquiryId", kind, channel, message_id AS "messageId", target, payload, attempts,
              created_at AS "createdAt" FROM deliveries WHERE id IN (${marks}) ORDER BY next_attempt_at`,
      ids,
    );
    const inquiries = await tx.query(
      `SELECT ${INQUIRY_COLUMNS} FROM inquiries i JOIN deliveries d ON d.inquiry_id = i.id WHERE d.id IN (${marks})`,
      ids,
    );
    const byId = new Map(inquiries.map((r) => [r.id, toInquiry(r)]));
    return claimed.map((d): Delivery => ({ ...d, inquiry: byId.get(d.inquiryId) ?? null }));
  });
}

export async function queue(
  tx: Sql,
  inquiryId: string | null,
  deliveries: NewDelivery[],
  now: number,
) {
  for (const d of deliveries) {
    const at = d.at ?? now;
    await tx.query(
      `INSERT INTO deliveries (id, inquiry_id, kind, channel, message_id, target, payload, status, attempts, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) ON CONFLICT DO NOTHING`,
      [
        d.id,
        inquiryId,
        d.kind ?? "lead",
        d.channel,
        d.messageId,
        d.target,
        d.payload ?? null,
        at,
        at,
      ],
    );
  }
}

// A send still under way is never taken over, and sent again, while its worker lives.
export const extendClaim = (db: Sql, id: string, workerId: string, until: number) =>
  db.query("UPDATE deliveries SET claimed_until = ? WHERE id = ? AND claimed_by = ?", [
    until,
    id,
    workerId,
  ]);

async function settle(
  db: Sql,
  id: string,
  workerId: string,
  set: string,
  params: unknown[],
  unlessHeld = false,
) {
  const rows = await db.query(
    `UPDATE deliveries SET ${set}, claimed_by = NULL, claimed_until = NULL
       WHERE id = ? AND claimed_by = ?${unlessHeld ? ` AND NOT ${HELD}` : ""} RETURNING id`,
    [...params, id, workerId],
  );
  return rows.length === 1;
}

const SENT = "status = 'sent', sent_at = ?, target = ?, payload = NULL, last_error = NULL";
export const recordSent = (db: Sql, id: string, workerId: string, now: number, target: string) =>
  settle(db, id, workerId, SENT, [now, target]);

export const retryAt = (db: Sql, id: string, workerId: string, at: number, error: string) =>
  settle(
    db,
    id,
    workerId,
    "status = 'pending', next_attempt_at = ?, last_error = ?",
    [at, error],
    true,
  );

const POSTPONED =
  "status = 'pending', next_attempt_at = ?, created_at = ?, attempts = attempts - 1";
export async function postpone(db: Sql, id: string, workerId: string, at: number): Promise<void> {
  await settle(db, id, workerId, POSTPONED, [at, at]);
}

export const fail = (db: Sql, id: string, workerId: string, error: string) =>
  settle(db, id, workerId, "status = 'failed', last_error = ?", [error], true);

const DROP = "DELETE FROM deliveries WHERE id = ? AND claimed_by = ?";
export async function drop(db: Sql, id: string, workerId: string): Promise<void> {
  await db.query(DROP, [id, workerId]);
}

export const cancelHeld = async (db: Sql, id: string, workerId: string) =>
  (await db.query(`${DROP} AND ${HELD} RETURNING id`, [id, workerId])).length === 1;

// A stopping worker's claims, pending again: the next one sends them at once, not after the lease.
export async function giveBack(db: Sql, workerId: string): Promise<number> {
  const rows = await db.query(
    `UPDATE deliveries SET status = 'pending', claimed_by = NULL, claimed_until = NULL, attempts = attempts - 1
       WHERE claimed_by = ? AND status = 'sending' RETURNING id`,
    [workerId],
  );
  return rows.length;
}

export async function retryFailed(db: Sql, now: number, channel?: string): Promise<number> {
  const rows = await db.query(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = ?, created_at = ?, attempts = 0
     WHERE status = 'failed'${channel ? " AND channel = ?" : ""} RETURNING id`,
    channel ? [now, now, channel] : [now, now],
  );
  return rows.length;
}

export const pending = (db: Sql, now: number) =>
  db.query<{ channel: string; count: number; oldestAgeMs: number }>(
    `SELECT channel, COUNT(*) AS count, ? - MIN(created_at) AS "oldestAgeMs" FROM deliveries
     WHERE status IN ('pending', 'sending') AND created_at <= ? AND NOT ${HELD} GROUP BY channel`,
    [now, now],
  );
