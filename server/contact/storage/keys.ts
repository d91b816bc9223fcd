import { randomBytes } from "node:crypto";
import type { Sql } from "./database.ts";

/**
 * The table `secret_keys` (ADR 0017): `links`, `form` and each month's `address` key (id "2026-11").
 * Instances starting together make one: the first insert wins.
 */

export type KeyPurpose = "links" | "form" | "address";

type KeyRow = {
  purpose: KeyPurpose;
  id: string;
  secret: string;
  createdAt: number;
  retiredAt: number | null;
};

const newSecret = () => randomBytes(32).toString("hex");
export const monthOf = (now: number) => new Date(now).toISOString().slice(0, 7);

export async function listKeys(sql: Sql): Promise<KeyRow[]> {
  return sql.query<KeyRow>(
    `SELECT purpose, id, secret, created_at AS "createdAt", retired_at AS "retiredAt"
       FROM secret_keys ORDER BY purpose, created_at, id`,
  );
}

const INSERT = "INSERT INTO secret_keys (purpose, id, secret, created_at) VALUES (?, ?, ?, ?)";
const NUMBERED = "purpose = ? AND id LIKE 'k%'";

export async function ensureAddressKey(sql: Sql, month: string, now: number): Promise<void> {
  await sql.query(`${INSERT} ON CONFLICT (purpose, id) DO NOTHING`, [
    "address",
    month,
    newSecret(),
    now,
  ]);
}

/** `k1`, unless the job has a key already (after a rotation k1 is retired, then deleted: not made again). */
export async function ensureFirstKey(
  sql: Sql,
  purpose: Exclude<KeyPurpose, "address">,
  now: number,
): Promise<void> {
  await sql.query(
    `INSERT INTO secret_keys (purpose, id, secret, created_at, retired_at)
       SELECT ?, 'k1', ?, ?, NULL WHERE NOT EXISTS (SELECT 1 FROM secret_keys WHERE ${NUMBERED})
       ON CONFLICT (purpose, id) DO NOTHING`,
    [purpose, newSecret(), now, purpose],
  );
}

export async function rotateKey(
  sql: Sql,
  purpose: Exclude<KeyPurpose, "address">,
  now: number,
): Promise<string> {
  return sql.transaction(async (tx) => {
    const rows = await tx.query<{ id: string }>(`SELECT id FROM secret_keys WHERE ${NUMBERED}`, [
      purpose,
    ]);
    const id = `k${Math.max(0, ...rows.map((r) => Number(r.id.slice(1)) || 0)) + 1}`;
    await tx.query(
      "UPDATE secret_keys SET retired_at = ? WHERE purpose = ? AND retired_at IS NULL",
      [now, purpose],
    );
    await tx.query(INSERT, [purpose, id, newSecret(), now]);
    return id;
  });
}

/** What no longer checks anything; every address key but this month's, so old hashes name no one. */
export async function deleteExpiredKeys(
  sql: Sql,
  now: number,
  ttlMs: { links: number; form: number },
) {
  const gone = await sql.query(
    `DELETE FROM secret_keys WHERE (purpose = 'links' AND retired_at < ?) OR (purpose = 'form' AND retired_at < ?)
       OR (purpose = 'address' AND id <> ?) RETURNING id`,
    [now - ttlMs.links, now - ttlMs.form, monthOf(now)],
  );
  return gone.length;
}
