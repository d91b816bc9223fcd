import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/**
 * Who uses the data folder (DATA_DIR): an exclusive SQLite lock on DATA_DIR/server.lock, which the kernel drops when the process ends,
 * however it ends: no mark to keep fresh, none left behind (docs/decisions/0025-the-platform-does-it.md).
 * POSIX drops a process's lock when it closes any descriptor of the file: nothing else opens it.
 */

/** The live SQLite database in a data folder. */
export const DATABASE_FILE = "inquiries.sqlite";
const LOCK_FILE = "server.lock";
/** Who holds the lock, for the message of the one refused; the lock alone decides. */
const HOLDER_FILE = "server.pid";

export type DataDirUser = { pid: number; host: string; startedAt: string };

/**
 * The data folder for this process alone (the server while it runs on SQLite; `restore` while it
 * replaces the database), until `release` or the process ends. Null while another process holds it.
 */
export function holdDataDir(dataDir: string): { release(): void } | null {
  const lock = new DatabaseSync(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    lock.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE");
  } catch (err) {
    lock.close();
    if ((err as { errcode?: number }).errcode === 5) return null;
    throw err;
  }
  const me: DataDirUser = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  writeFileSync(join(dataDir, HOLDER_FILE), `${JSON.stringify(me)}\n`);
  return { release: () => lock.close() };
}

/** Who holds the data folder, as it wrote when it took it (null if unreadable). */
export function dataDirHolder(dataDir: string): DataDirUser | null {
  try {
    return JSON.parse(readFileSync(join(dataDir, HOLDER_FILE), "utf8")) as DataDirUser;
  } catch {
    return null;
  }
}
