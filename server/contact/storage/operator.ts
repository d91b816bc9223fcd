import type { Routing } from "../delivery/routing.ts";
import { Queries, writeAlone } from "./database.ts";
import {
  type ChannelName,
  DELIVERY_COLUMNS,
  type DeliveryRecord,
  type DeliveryStatus,
  INQUIRY_COLUMNS,
  type Inquiry,
  type InquiryRecord,
  insertDeliveries,
  type NewDelivery,
  summarize,
  toDelivery,
  toInquiry,
} from "./records.ts";
import { insertMark } from "./training.ts";

/**
 * What operators and reports read and change (the CLI, /metrics, the daily summary): inquiries with
 * their deliveries, counts and stats, retries of failed deliveries, purging, and held inquiries.
 */
export class OperatorQueries extends Queries {
  list(opts: { since?: number } = {}): Promise<InquiryRecord[]> {
    return this.records("i.received_at >= ?", [opts.since ?? 0]);
  }

  async get(id: string): Promise<InquiryRecord | null> {
    return (await this.records("i.id = ?", [id]))[0] ?? null;
  }

  /** The inquiries that match `where` (on inquiries `i`), newest first, each with its deliveries. */
  private async records(where: string, params: unknown[]): Promise<InquiryRecord[]> {
    const rows = await this.db.query(
      `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE ${where} ORDER BY i.received_at DESC, i.id`,
      params,
    );
    const deliveries = await this.db.query(
      `SELECT d.inquiry_id, ${DELIVERY_COLUMNS} FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id
       WHERE ${where} ORDER BY d.channel`,
      params,
    );
    const byInquiry = new Map<string, DeliveryRecord[]>();
    for (const d of deliveries) {
      const list = byInquiry.get(String(d.inquiry_id)) ?? [];
      list.push(toDelivery(d));
      byInquiry.set(String(d.inquiry_id), list);
    }
    return rows.map((r) => summarize(toInquiry(r), byInquiry.get(String(r.id)) ?? []));
  }

  /** Failed deliveries (of one channel, or all) back to pending, due now, with a fresh retry window. */
  async retryFailed(now: number, channel?: ChannelName): Promise<number> {
    const rows = await writeAlone(
      this.db,
      `UPDATE deliveries SET status = 'pending', next_attempt_at = ?, created_at = ?, attempts = 0
       WHERE status = 'failed'${channel ? " AND channel = ?" : ""} RETURNING id`,
      channel ? [now, now, channel] : [now, now],
    );
    return rows.length;
  }

  /**
   * Delete inquiries received before `before`, with their deliveries and idempotency records. Says
   * how many of them still had a delivery waiting, so that none is cut off silently.
   */
  async purge(before: number): Promise<{ deleted: number; pendingCut: number }> {
    return this.db.transaction(async (tx) => {
      const [waiting] = await tx.query<{ n: number }>(
        `SELECT COUNT(DISTINCT d.inquiry_id) AS n FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id
         WHERE i.received_at < ? AND d.status IN ('pending', 'sending')`,
        [before],
      );
      await tx.query("DELETE FROM idempotency_keys WHERE created_at < ?", [before]);
      const rows = await tx.query("DELETE FROM inquiries WHERE received_at < ? RETURNING id", [before]);
      return { deleted: rows.length, pendingCut: Number(waiting?.n ?? 0) };
    });
  }

  /** Everything held about one person, by email address (any case): their inquiries and deliveries. */
  byEmail(email: string): Promise<InquiryRecord[]> {
    return this.records("LOWER(i.email) = LOWER(?)", [email]);
  }

  /** Delete everything held about one person: inquiries, deliveries, idempotency records. */
  async forget(email: string): Promise<{ ids: string[]; deliveries: number; keys: number }> {
    return this.db.transaction(async (tx) => {
      const ids = (
        await tx.query<{ id: string }>("SELECT id FROM inquiries WHERE LOWER(email) = LOWER(?)", [email])
      ).map((r) => String(r.id));
      if (ids.length === 0) return { ids, deliveries: 0, keys: 0 };
      const marks = ids.map(() => "?").join(", ");
      const deliveries = await tx.query(`DELETE FROM deliveries WHERE inquiry_id IN (${marks}) RETURNING id`, ids);
      const keys = await tx.query(`DELETE FROM idempotency_keys WHERE inquiry_id IN (${marks}) RETURNING key`, ids);
      await tx.query(`DELETE FROM inquiries WHERE id IN (${marks})`, ids);
      return { ids, deliveries: deliveries.length, keys: keys.length };
    });
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
    deliveries: Array<{ channel: ChannelName; target: string | null; status: DeliveryStatus; count: number }>;
  }> {
    const [i] = await this.db.query<{ n: number; spam: number }>(
      `SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN spam THEN 1 ELSE 0 END), 0) AS spam
       FROM inquiries WHERE received_at >= ?`,
      [since],
    );
    // Where the leads went: per channel, target (delivery/routing.ts) and status.
    const rows = await this.db.query<{
      channel: ChannelName;
      target: string | null;
      status: DeliveryStatus;
      n: number;
    }>(
      `SELECT d.channel, d.target, d.status, COUNT(*) AS n FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id
       WHERE i.received_at >= ? GROUP BY d.channel, d.target, d.status ORDER BY d.channel, d.target, d.status`,
      [since],
    );
    return {
      inquiries: { total: Number(i?.n ?? 0), spam: Number(i?.spam ?? 0) },
      deliveries: rows.map((r) => ({
        channel: r.channel,
        target: r.target ?? null,
        status: r.status,
        count: Number(r.n),
      })),
    };
  }

  /** When the last summary of held inquiries was sent (0: never). */
  async heldSummarySentAt(): Promise<number> {
    const [row] = await this.db.query<{ value: string }>("SELECT value FROM settings WHERE name = 'held_summary_at'");
    return Number(row?.value ?? 0);
  }

  /** Mark the summary of held inquiries sent, once it is. */
  async markHeldSummarySent(at: number): Promise<void> {
    await writeAlone(this.db, "UPDATE settings SET value = ? WHERE name = 'held_summary_at'", [String(at)]);
  }

  /** Inquiries held out of the inbox, newest first. */
  async listHeld(since = 0): Promise<Inquiry[]> {
    const rows = await this.db.query(
      `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE i.spam AND i.received_at >= ? ORDER BY i.received_at DESC, i.id`,
      [since],
    );
    return rows.map(toInquiry);
  }

  /**
   * Release a held inquiry: a normal lead from now on, delivered to every configured channel, and a
   * genuine example the content filter learns from. False if there is no held inquiry with that id.
   */
  async releaseHeld(id: string, deliveries: NewDelivery[], now: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const released = await tx.query(
        "UPDATE inquiries SET spam = ?, held_reason = NULL WHERE id = ? AND spam RETURNING id",
        [false, id],
      );
      if (released.length === 0) return false;
      await insertDeliveries(tx, id, deliveries, now);
      await insertMark(tx, id, "genuine", now);
      return true;
    });
  }

  /** Record where the server sends each service's leads, so that `release` from any shell queues the same. */
  async recordRouting(routing: Routing): Promise<void> {
    await writeAlone(
      this.db,
      "INSERT INTO settings (name, value) VALUES ('routing', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
      [JSON.stringify(routing)],
    );
  }

  /** The routing the server recorded at its last start (no URL or secret in it); null if it never ran here. */
  async serverRouting(): Promise<Routing | null> {
    const [row] = await this.db.query<{ value: string }>("SELECT value FROM settings WHERE name = 'routing'");
    return row ? (JSON.parse(row.value) as Routing) : null;
  }

  /**
   * Take the turn for a periodic task (`held_summary_claim`: a try at the summary of held inquiries;
   * `retention_at`: the retention pass): granted to exactly one caller among several instances once
   * `intervalMs` has passed since the last turn, with the time of that last turn.
   */
  async claimTurn(
    name: "held_summary_claim" | "retention_at",
    now: number,
    intervalMs: number,
  ): Promise<{ since: number } | null> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<{ value: string }>("SELECT value FROM settings WHERE name = ?", [name]);
      const last = Number(row?.value ?? 0);
      if (now - last < intervalMs) return null;
      const updated = await tx.query("UPDATE settings SET value = ? WHERE name = ? AND value = ? RETURNING name", [
        String(now),
        name,
        String(last),
      ]);
      return updated.length === 1 ? { since: last || now - intervalMs } : null;
    });
  }
}
