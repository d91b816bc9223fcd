import type { Sql } from "./database.ts";

/** The table `settings`: what the instances on one database share (`routing`, `digest_day`, `digest_at`). */

export async function readSetting(sql: Sql, name: string): Promise<string | null> {
  const [row] = await sql.query<{ value: string }>("SELECT value FROM settings WHERE name = ?", [
    name,
  ]);
  return row?.value ?? null;
}

export async function writeSetting(sql: Sql, name: string, value: string): Promise<void> {
  const upsert =
    "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value";
  await sql.query(upsert, [name, value]);
}
