import type { Database, Sql } from "./database.ts";
import { get } from "./inquiries.ts";
import { INQUIRY_COLUMNS, type Inquiry, type InquiryRecord, toInquiry } from "./records.ts";

/**
 * The reply promise's columns of `inquiries` (migration 020, ADR 0020): who took a lead and when
 * ("I'm on it"), and its one reminder, claimed by one instance and recorded once sent.
 */

/** What a press of "I'm on it" found: the inquiry as it is now, and whether this press was the first. */
export type Taken = { inquiry: InquiryRecord; first: boolean };

/**
 * Record that someone took the inquiry, if nobody had: the first press keeps its time and name;
 * later ones change nothing and learn who was first. Null if there is no such inquiry.
 */
export async function take(db: Database, id: string, by: string | null, now: number): Promise<Taken | null> {
  return db.transaction(async (tx) => {
    const updated = await tx.query(
      "UPDATE inquiries SET taken_at = ?, taken_by = ? WHERE id = ? AND taken_at IS NULL RETURNING id",
      [now, by, id],
    );
    const inquiry = await get(tx, id);
    return inquiry ? { inquiry, first: updated.length === 1 } : null;
  });
}

/**
 * Leads nobody took and no reminder went for, received between `since` and `until`, oldest first,
 * with their reminder's claim (0: none). Held ones never remind; possible spam does.
 */
export async function waiting(sql: Sql, since: number, until: number) {
  const rows = await sql.query(
    `SELECT ${INQUIRY_COLUMNS}, i.reminder_claimed_at FROM inquiries i
       WHERE NOT i.held AND i.taken_at IS NULL AND i.reminded_at IS NULL AND i.received_at >= ? AND i.received_at <= ?
       ORDER BY i.received_at, i.id`,
    [since, until],
  );
  return rows.map((r) => ({ inquiry: toInquiry(r), claim: Number(r.reminder_claimed_at ?? 0) }));
}

/**
 * Claim a lead's reminder at `now`, if it is still what the caller saw (`seen`: the claim it read,
 * 0 for none) and still waiting: granted to exactly one instance, however many try at once.
 */
export async function claimReminder(db: Database, id: string, seen: number, now: number): Promise<boolean> {
  const rows = await db.transaction((tx) =>
    tx.query(
      `UPDATE inquiries SET reminder_claimed_at = ?
         WHERE id = ? AND COALESCE(reminder_claimed_at, 0) = ? AND NOT held AND taken_at IS NULL AND reminded_at IS NULL
         RETURNING id`,
      [now, id, seen],
    ),
  );
  return rows.length === 1;
}

/** The reminder this instance claimed (`claim`) went: recorded, never sent again. */
export async function markReminded(db: Database, id: string, claim: number, now: number): Promise<void> {
  await db.transaction((tx) =>
    tx.query("UPDATE inquiries SET reminded_at = ? WHERE id = ? AND reminder_claimed_at = ?", [now, id, claim]),
  );
}

/** The leads (not held) received since `since`: when each came, was taken and was reminded. */
export async function leadTimes(sql: Sql, since: number): Promise<Inquiry[]> {
  const rows = await sql.query(
    `SELECT ${INQUIRY_COLUMNS} FROM inquiries i WHERE NOT i.held AND i.received_at >= ? ORDER BY i.received_at`,
    [since],
  );
  return rows.map(toInquiry);
}
