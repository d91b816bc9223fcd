import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Sql } from "./database.ts";

/**
 * The schema, as numbered SQL files per engine (db/migrations/{sqlite,postgres}/NNN_name.sql), each
 * applied once, in order, recorded in schema_migrations (docs/decisions/0008-libraries-or-our-own-code.md).
 */

export function readMigrations(engine: Sql["engine"]) {
  const dir = new URL(`../../../db/migrations/${engine}/`, import.meta.url).pathname;
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({
      version: Number(f.slice(0, 3)),
      name: f,
      sql: readFileSync(join(dir, f), "utf8"),
    }));
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

const RECORD = "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)";

/** In one transaction; on PostgreSQL, instances starting together take turns (an advisory lock). */
export async function migrate(db: Sql, exec: (tx: Sql, sql: string) => unknown): Promise<string[]> {
  return db.transaction(async (tx) => {
    if (tx.engine === "postgres") await tx.query("SELECT pg_advisory_xact_lock(7305200001)");
    await exec(
      tx,
      "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
    );
    const pending = await pendingMigrations(tx);
    for (const m of readMigrations(tx.engine).filter((m) => pending.includes(m.name))) {
      await exec(tx, m.sql);
      await tx.query(RECORD, [m.version, m.name, Date.now()]);
    }
    return pending;
  });
}
