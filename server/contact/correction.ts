import { correctionSchema } from "../../app/contact/schema.ts";
import { normalizeEmail } from "./erasure.ts";
import type { Database } from "./storage/database.ts";

/**
 * A "correct my data" request (`npm run inquiries -- correct`): name, address or company changed in
 * every inquiry the person sent (found as `forget` finds them), each value by the form's own rule.
 * Copies already delivered, and the files in DATA_DIR/mail, the operator corrects by hand.
 */

type Correction = { name?: string; email?: string; company?: string };

export function parseCorrection(input: Correction): Correction {
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length === 0)
    throw new Error("nothing to correct: give --name, --new-email or --company");
  const { success, data, error } = correctionSchema.safeParse(given);
  const issue = error?.issues[0];
  if (!success)
    throw new Error(`${String(issue?.path[0] ?? "value")}: ${issue?.message ?? "not valid"}`);
  return Object.fromEntries(Object.entries(data).filter(([k]) => Object.hasOwn(given, k)));
}

export async function correct(
  db: Database,
  email: string,
  correction: Correction,
): Promise<number> {
  const fields = Object.entries(parseCorrection(correction));
  const set = fields.map(([k]) => `${k} = ?`).join(", ");
  const update = `UPDATE inquiries SET ${set} WHERE LOWER(email) = ? RETURNING id`;
  return (await db.query(update, [...fields.map(([, v]) => v), normalizeEmail(email)])).length;
}
