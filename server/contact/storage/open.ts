import { join } from "node:path";
import { DATABASE_FILE } from "./data-dir.ts";
import type { Database, StorageWatcher } from "./database.ts";
import { openPostgres } from "./postgres.ts";
import { openSqlite } from "./sqlite.ts";

export function openDatabase(
  opts: { DATABASE_URL?: string; dataDir: string },
  watcher?: StorageWatcher,
): Database {
  return opts.DATABASE_URL
    ? openPostgres(opts.DATABASE_URL, watcher)
    : openSqlite(join(opts.dataDir, DATABASE_FILE), watcher);
}
