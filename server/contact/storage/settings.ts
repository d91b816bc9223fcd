import type { Database, Sql } from "./database.ts";

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
  await sql.query(upsert, [name, value]);
}

/** The database's clock, in epoch milliseconds: the one clock every instance on it shares. */
export async function databaseNow(sql: Sql): Promise<number> {
  const now =
    sql.engine === "postgres"
      ? "SELECT FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS now"
      : "SELECT CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER) AS now";
  const [row] = await sql.query<{ now: number }>(now);
  return Number(row?.now);
}

/**
 * Take the turn for a periodic task (`held_summary_claim`: a try at the summary of held inquiries;
 * `retention_at`: the retention pass): granted to exactly one caller among several instances once
 * `ms` have passed since the last turn, by the database's clock, so instances whose clocks disagree
 * take turns all the same; a turn stamped in the future (a clock that ran ahead) counts as due.
 * Says when this turn and the last one were.
 */
export async function claimTurn(sql: Database, name: "held_summary_claim" | "retention_at", ms: number) {
  return sql.transaction(async (tx) => {
    const now = await databaseNow(tx);
    const [row] = await tx.query<{ value: string }>("SELECT value FROM settings WHERE name = ?", [name]);
    const last = Number(row?.value ?? 0);
    if (last <= now && now - last < ms) return null;
    const updated = await tx.query("UPDATE settings SET value = ? WHERE name = ? AND value = ? RETURNING name", [
      String(now),
      name,
      String(last),
    ]);
    return updated.length === 1 ? { now, since: last && last <= now ? last : now - ms } : null;
  });
}
