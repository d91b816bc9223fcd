import { type Database, type Sql, writeAlone } from "./database.ts";

/**
 * The table `settings`: what the instances on one database share — the routing the server last
 * started with (`routing`, for `release` from any shell), when the held summary was last sent, and
 * the turns of the periodic tasks.
 */

/** A setting's value (`held_summary_at`, `routing`, …); null if it was never written. */
export async function readSetting(sql: Sql, name: string): Promise<string | null> {
  const [row] = await sql.query<{ value: string }>("SELECT value FROM settings WHERE name = ?", [name]);
  return row?.value ?? null;
}

export async function writeSetting(sql: Sql, name: string, value: string): Promise<void> {
  const upsert =
    "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value";
  await writeAlone(sql, upsert, [name, value]);
}

/**
 * Take the turn for a periodic task (`held_summary_claim`: a try at the summary of held inquiries;
 * `retention_at`: the retention pass): granted to exactly one caller among several instances once
 * `ms` have passed since the last turn, with the time of that last turn.
 */
export async function claimTurn(sql: Database, name: "held_summary_claim" | "retention_at", now: number, ms: number) {
  return sql.transaction(async (tx) => {
    const [row] = await tx.query<{ value: string }>("SELECT value FROM settings WHERE name = ?", [name]);
    const last = Number(row?.value ?? 0);
    if (now - last < ms) return null;
    const updated = await tx.query("UPDATE settings SET value = ? WHERE name = ? AND value = ? RETURNING name", [
      String(now),
      name,
      String(last),
    ]);
    return updated.length === 1 ? { since: last || now - ms } : null;
  });
}
