import { Queries, type Sql } from "./database.ts";
import { type Inquiry, insertDeliveries, type NewDelivery } from "./records.ts";

/**
 * What a submission writes, in one ordinary transaction on either engine: its Idempotency-Key
 * (a key seen before stores and counts nothing), its rate-limit counters (over any limit, nothing
 * is stored), then the inquiry, its deliveries and the key's record — together or not at all.
 */

/** A limit: at most `points` submissions per `durationMs` for one counter (`key`: a prefix and a hash). */
export type Limit = { key: string; points: number; durationMs: number };

/** What an Idempotency-Key was given the first time: the inquiry it stored, for which message. */
export type KeyRecord = { inquiryId: string; fingerprint: string | null };

export type SaveRequest = {
  inquiry: Inquiry;
  deliveries: NewDelivery[];
  limits: Limit[];
  idempotency?: { key: string; fingerprint: string };
};

export type SaveResult =
  | { kind: "saved" }
  | { kind: "key-seen"; first: KeyRecord }
  /** Over a rate limit: nothing stored; the limit frees up in `retryAfterMs`. */
  | { kind: "over-limit"; retryAfterMs: number };

export class InquiryIntake extends Queries {
  /** What an Idempotency-Key stored the first time, if it was used before. */
  async keyRecord(key: string, sql: Sql = this.db): Promise<KeyRecord | null> {
    const [row] = await sql.query<{ inquiry_id: string; fingerprint: string | null }>(
      "SELECT inquiry_id, fingerprint FROM idempotency_keys WHERE key = ?",
      [key],
    );
    return row ? { inquiryId: String(row.inquiry_id), fingerprint: row.fingerprint ?? null } : null;
  }

  async save({ inquiry: i, deliveries, limits, idempotency }: SaveRequest): Promise<SaveResult> {
    const key = idempotency?.key;
    try {
      return await this.db.transaction<SaveResult>(async (tx) => {
        const first = key ? await this.keyRecord(key, tx) : null;
        if (first) return { kind: "key-seen", first };
        const blockedUntil = await countLimits(tx, limits, i.receivedAt);
        if (blockedUntil !== null)
          return { kind: "over-limit", retryAfterMs: Math.max(0, blockedUntil - i.receivedAt) };
        await tx.query(
          `INSERT INTO inquiries (id, received_at, name, email, company, service, message, page, user_agent, ip_hash, source,
                                  spam, held_reason, message_hash, spam_score)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            i.id,
            i.receivedAt,
            i.name,
            i.email,
            i.company,
            i.service,
            i.message,
            i.page,
            i.userAgent,
            i.ipHash,
            i.source,
            i.spam,
            i.heldReason ?? null,
            i.messageHash ?? null,
            i.spamScore ?? null,
          ],
        );
        await insertDeliveries(tx, i.id, deliveries, i.receivedAt);
        if (idempotency) {
          await tx.query(
            "INSERT INTO idempotency_keys (key, inquiry_id, created_at, fingerprint) VALUES (?, ?, ?, ?)",
            [idempotency.key, i.id, i.receivedAt, idempotency.fingerprint],
          );
        }
        return { kind: "saved" };
      });
    } catch (e) {
      // Two requests with one key at the same moment (PostgreSQL): the loser reads the winner's record.
      const first = key ? await this.keyRecord(key).catch(() => null) : null;
      if (first) return { kind: "key-seen", first };
      throw e;
    }
  }

  /** Whether the same message (by hash) was received since `since`. */
  async seenMessage(messageHash: string, since: number): Promise<boolean> {
    const rows = await this.db.query(
      "SELECT 1 AS x FROM inquiries WHERE message_hash = ? AND received_at >= ? LIMIT 1",
      [messageHash, since],
    );
    return rows.length > 0;
  }
}

/**
 * The rate-limit rule: count one submission against each limit (a window starts again once it has
 * expired) and return when the furthest limit it is over frees up, or null if it is over none.
 */
async function countLimits(tx: Sql, limits: Limit[], now: number): Promise<number | null> {
  if (limits.length === 0) return null;
  const rows = await tx.query<{ key: string; points: number; expire: number }>(
    `INSERT INTO rate_limits (key, points, expire) VALUES ${limits.map(() => "(?, 1, ?)").join(", ")}
     ON CONFLICT (key) DO UPDATE SET
       points = CASE WHEN rate_limits.expire <= ? THEN 1 ELSE rate_limits.points + 1 END,
       expire = CASE WHEN rate_limits.expire <= ? THEN excluded.expire ELSE rate_limits.expire END
     RETURNING key, points, expire`,
    [...limits.flatMap((l) => [l.key, now + l.durationMs]), now, now],
  );
  const over = rows.filter((r) => Number(r.points) > (limits.find((l) => l.key === r.key)?.points ?? Infinity));
  return over.length > 0 ? Math.max(...over.map((r) => Number(r.expire))) : null;
}
