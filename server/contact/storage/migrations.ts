import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Engine, Sql } from "./database.ts";

/**
 * The schema, as numbered SQL files per engine (db/migrations/{sqlite,postgres}/NNN_name.sql), each
 * applied once, in order, recorded in schema_migrations (docs/decisions/0008-libraries-or-our-own-code.md).
 */

export function readMigrations(engine: Engine) {
  const dir = new URL(`../../../db/migrations/${engine}/`, import.meta.url).pathname;
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f, sql: readFileSync(join(dir, f), "utf8") }));
}

// No table yet is a new database; any other failure (a database that does not answer) is not.
export async function pendingMigrations(db: Sql): Promise<string[]> {
  const applied = await db
    .query<{ version: number }>("SELECT version FROM schema_migrations")
    .then((rows) => new Set(rows.map((r) => Number(r.version))))
    .catch((e: { code?: string; message?: string }) => {
      if (e.code === "42P01" || /no such table/.test(e.message ?? "")) return new Set<number>();
      throw e;
    });
  return readMigrations(db.engine)
    .filter((m) => !applied.has(m.version))
    .map((m) => m.name);
}

export async function applyMigration(
  tx: Sql,
  m: { version: number; name: string; sql: string },
  run: (sql: string) => unknown,
): Promise<boolean> {
  const done = await tx.query("SELECT 1 FROM schema_migrations WHERE version = ?", [m.version]);
  if (done.length > 0) return false;
  await run(m.sql);
  await tx.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [
    m.version,
    m.name,
    Date.now(),
  ]);
  return true;
}
