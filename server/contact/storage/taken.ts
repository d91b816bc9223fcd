import type { Database, Sql } from "./database.ts";
import { get } from "./inquiries.ts";
import { queue } from "./outbox.ts";
import { INQUIRY_COLUMNS, type Inquiry, type InquiryRecord, type NewDelivery, toInquiry } from "./records.ts";

/** The reply promise's columns of `inquiries` (ADR 0020): who took a lead and when ("I'm on it"). */

export type Taken = { inquiry: InquiryRecord; first: boolean };

/**
 * The first press keeps its time and name, its reminder no longer goes, and `reports` (the webhook's
 * inquiry.taken) are queued unless it is held; later presses change nothing and learn who was
 * first. Null if there is no such inquiry.
 */
export async function take(
  db: Database,
  id: string,
  by: string | null,
  now: number,
  reports: (inquiry: Inquiry) => NewDelivery[],
): Promise<Taken | null> {
  return db.transaction(async (tx) => {
    const updated = await tx.query(
      "UPDATE inquiries SET taken_at = ?, taken_by = ? WHERE id = ? AND taken_at IS NULL RETURNING id",
      [now, by, id],
    );
    const inquiry = await get(tx, id);
    const first = updated.length === 1;
    if (inquiry && first) {
      await tx.query("DELETE FROM deliveries WHERE inquiry_id = ? AND kind = 'reminder' AND status <> 'sending'", [id]);
      if (!inquiry.held) await queue(tx, id, reports(inquiry), now);
    }
    return inquiry ? { inquiry, first } : null;
  });
}

export async function recordReminded(db: Database, id: string, now: number, reports: NewDelivery[]) {
  await db.transaction(async (tx) => {
    await tx.query("UPDATE inquiries SET reminded_at = ? WHERE id = ?", [now, id]);
    await queue(tx, id, reports, now);
  });
}

export async function leadTimes(sql: Sql, since: number): Promise<Inquiry[]> {
  const rows = await sql.query(
    `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE NOT i.held AND i.received_at >= ? ORDER BY i.received_at`,
    [since],
  );
  return rows.map(toInquiry);
}
