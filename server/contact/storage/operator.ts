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

  /** Delete inquiries received before `before` (their jobs and idempotency answers go with them). */
  async purge(before: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      await tx.query("DELETE FROM idempotency_keys WHERE created_at < ?", [before]);
      const rows = await tx.query("DELETE FROM inquiries WHERE received_at < ? RETURNING id", [before]);
      return rows.length;
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
    deliveries: Array<{ channel: ChannelName; status: DeliveryStatus; count: number }>;
  }> {
    const [i] = await this.db.query<{ n: number; spam: number }>(
      `SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN spam THEN 1 ELSE 0 END), 0) AS spam
       FROM inquiries WHERE received_at >= ?`,
      [since],
    );
    const rows = await this.db.query<{ channel: ChannelName; status: DeliveryStatus; n: number }>(
      `SELECT d.channel, d.status, COUNT(*) AS n FROM deliveries d JOIN inquiries i ON i.id = d.inquiry_id
       WHERE i.received_at >= ? GROUP BY d.channel, d.status ORDER BY d.channel, d.status`,
      [since],
    );
    return {
      inquiries: { total: Number(i?.n ?? 0), spam: Number(i?.spam ?? 0) },
      deliveries: rows.map((r) => ({ channel: r.channel, status: r.status, count: Number(r.n) })),
    };
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
      await insertDeliveries(tx, id, deliveries, now);
      return true;
    });
  }

  /** Record the channels the server delivers to, so that `release` from any shell queues the same. */
  async recordChannels(channels: ChannelName[]): Promise<void> {
    await writeAlone(
      this.db,
      "INSERT INTO settings (name, value) VALUES ('channels', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
      [channels.join(",")],
    );
  }

  /** The channels the server recorded at its last start; null if it never ran on this database. */
  async serverChannels(): Promise<ChannelName[] | null> {
    const [row] = await this.db.query<{ value: string }>("SELECT value FROM settings WHERE name = 'channels'");
    return row ? (row.value.split(",").filter(Boolean) as ChannelName[]) : null;
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
