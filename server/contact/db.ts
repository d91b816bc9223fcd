import { join } from "node:path";
import { openPostgres } from "./db-postgres.ts";
import { openSqlite } from "./db-sqlite.ts";
import type { Database, StorageWatcher } from "./storage.ts";

/**
 * The contact pipeline's storage, one door: the interface and its errors (storage.ts), and the
 * engine the configuration asks for — SQLite (db-sqlite.ts) unless DATABASE_URL names PostgreSQL
 * (db-postgres.ts). Migrations: db-migrations.ts.
 */

export { openPostgres, type PostgresOptions } from "./db-postgres.ts";
export { openSqlite, type SqliteOptions } from "./db-sqlite.ts";
export * from "./storage.ts";

export function openDatabase(opts: { databaseUrl?: string; dataDir: string }, watcher?: StorageWatcher): Database {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, { watcher })
    : openSqlite(join(opts.dataDir, "inquiries.sqlite"), { watcher });
}
