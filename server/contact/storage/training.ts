import type { Example, Label } from "../intake/content-filter.ts";
import type { Sql } from "./database.ts";

/**
 * What the content filter learned from the company: one mark per inquiry (`spam` or `genuine`),
 * made by `npm run inquiries -- spam <id>` and `release <id>`. A mark holds no text of its own; it is
 * read with its inquiry's, and goes when the inquiry does (retention, `forget`).
 */

export type Mark = {
  inquiryId: string;
  label: Label;
  markedAt: number;
  name: string;
  company: string;
  message: string;
};

const MARK = `INSERT INTO spam_training (inquiry_id, label, marked_at) SELECT id, ?, ? FROM inquiries WHERE id = ?
  ON CONFLICT (inquiry_id) DO UPDATE SET label = excluded.label, marked_at = excluded.marked_at RETURNING inquiry_id`;

/**
 * Mark an inquiry (a second mark replaces the first), on its own or in the caller's transaction
 * (`release` marks what it releases genuine). False if there is no such inquiry.
 */
export async function mark(sql: Sql, inquiryId: string, label: Label, now: number): Promise<boolean> {
  return (await sql.query(MARK, [label, now, inquiryId])).length === 1;
}

/** Take a mark back. False if the inquiry had none. */
export async function undo(sql: Sql, inquiryId: string): Promise<boolean> {
  const rows = await sql.query("DELETE FROM spam_training WHERE inquiry_id = ? RETURNING inquiry_id", [inquiryId]);
  return rows.length === 1;
}

/** Every mark with its inquiry's words, oldest first. */
export async function list(sql: Sql): Promise<Mark[]> {
  const rows = await sql.query(
    `SELECT t.inquiry_id, t.label, t.marked_at, i.name, i.company, i.message
       FROM spam_training t JOIN inquiries i ON i.id = t.inquiry_id ORDER BY t.marked_at, t.inquiry_id`,
    [],
  );
  return rows.map((r) => ({
    inquiryId: String(r.inquiry_id),
    label: r.label as Label,
    markedAt: Number(r.marked_at),
    name: String(r.name),
    company: String(r.company),
    message: String(r.message),
  }));
}

/** The marks as training examples. */
export async function examples(sql: Sql): Promise<Example[]> {
  return (await list(sql)).map(({ label, company, message }) => ({ label, company, message }));
}

/** The revision of no marks at all: what a model of the seed alone has learned. */
export const NO_MARKS = "0:0";

/** Changes whenever a mark is made, replaced or goes: instances compare it to know when to learn again. */
export async function revision(sql: Sql): Promise<string> {
  const [row] = await sql.query<{ n: number; s: number }>(
    "SELECT COUNT(*) AS n, COALESCE(SUM(marked_at), 0) AS s FROM spam_training",
    [],
  );
  return `${Number(row?.n ?? 0)}:${Number(row?.s ?? 0)}`;
}
