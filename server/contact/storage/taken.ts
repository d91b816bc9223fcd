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
 * The jobs the reply promise does once per inquiry (review/reminders.ts): the reminder, and the
 * reports to a webhook receiver that it was taken and that it was reminded. Each has its claim and
 * its record of being done (migration 020), and what makes it due.
 */
export type ReplyJob = "reminder" | "taken_report" | "reminded_report";
const JOBS: Record<ReplyJob, { claim: string; done: string; due: string }> = {
  reminder: { claim: "reminder_claimed_at", done: "reminded_at", due: "NOT held AND taken_at IS NULL" },
  taken_report: { claim: "taken_report_claimed_at", done: "taken_reported_at", due: "taken_at IS NOT NULL" },
  reminded_report: { claim: "reminded_report_claimed_at", done: "reminded_reported_at", due: "reminded_at > 0" },
};

/**
 * The inquiries received between `since` and `until` whose `job` is due and not done, oldest first,
 * with its claim (0: none). The reminder's: leads nobody took; held ones never remind, possible spam does.
 */
export async function due(sql: Sql, job: ReplyJob, since: number, until: number) {
  const { claim, done, due } = JOBS[job];
  const rows = await sql.query(
    `SELECT ${INQUIRY_COLUMNS}, i.${claim} AS claim FROM inquiries i
       WHERE ${due} AND ${done} IS NULL AND received_at >= ? AND received_at <= ?
       ORDER BY i.received_at, i.id`,
    [since, until],
  );
  return rows.map((r) => ({ inquiry: toInquiry(r), claim: Number(r.claim ?? 0) }));
}

/**
 * Claim an inquiry's `job` at `now`, if it is still what the caller saw (`seen`: the claim it read,
 * 0 for none) and still due: granted to exactly one instance, however many try at once.
 */
export async function claim(db: Database, job: ReplyJob, id: string, seen: number, now: number): Promise<boolean> {
  const { claim, done, due } = JOBS[job];
  const rows = await db.transaction((tx) =>
    tx.query(
      `UPDATE inquiries SET ${claim} = ? WHERE id = ? AND COALESCE(${claim}, 0) = ? AND ${done} IS NULL AND ${due}
         RETURNING id`,
      [now, id, seen],
    ),
  );
  return rows.length === 1;
}

/** The `job` this instance claimed (`claimed`) is done: recorded, never done again. */
export async function markDone(db: Database, job: ReplyJob, id: string, claimed: number, now: number) {
  const { claim, done } = JOBS[job];
  await db.transaction((tx) =>
    tx.query(`UPDATE inquiries SET ${done} = ? WHERE id = ? AND ${claim} = ?`, [now, id, claimed]),
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
