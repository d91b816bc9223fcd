import type { Example, Label } from "../intake/content-filter.ts";
import type { Sql } from "./database.ts";

/**
 * What the content filter learned from the company: one mark per inquiry, a second replacing the
 * first. A mark holds no text of its own; it is read with its inquiry's, and goes when it does.
 */

type Mark = {
  inquiryId: string;
  label: Label;
  markedAt: number;
  name: string;
  company: string;
  message: string;
};

const MARK = `INSERT INTO spam_training (inquiry_id, label, marked_at) SELECT id, ?, ? FROM inquiries WHERE id = ?
  ON CONFLICT (inquiry_id) DO UPDATE SET label = excluded.label, marked_at = excluded.marked_at RETURNING inquiry_id`;

export async function mark(
  sql: Sql,
  inquiryId: string,
  label: Label,
  now: number,
): Promise<boolean> {
  return (await sql.query(MARK, [label, now, inquiryId])).length === 1;
}

export async function undo(sql: Sql, inquiryId: string): Promise<boolean> {
  const rows = await sql.query(
    "DELETE FROM spam_training WHERE inquiry_id = ? RETURNING inquiry_id",
    [inquiryId],
  );
  return rows.length === 1;
}

export async function list(sql: Sql): Promise<Mark[]> {
  return sql.query<Mark>(
    `SELECT t.inquiry_id AS "inquiryId", t.label, t.marked_at AS "markedAt", i.name, i.company, i.message
       FROM spam_training t JOIN inquiries i ON i.id = t.inquiry_id ORDER BY t.marked_at, t.inquiry_id`,
  );
}

export async function examples(sql: Sql): Promise<Example[]> {
  return (await list(sql)).map(({ label, company, message }) => ({ label, company, message }));
}

export const NO_MARKS = "0:0";

// Changes whenever a mark is made, replaced or goes: instances compare it to learn again.
export async function revision(sql: Sql): Promise<string> {
  const [row] = await sql.query<{ n: number; s: number }>(
    "SELECT COUNT(*) AS n, COALESCE(SUM(marked_at), 0) AS s FROM spam_training",
  );
  return `${row?.n}:${row?.s}`;
}
