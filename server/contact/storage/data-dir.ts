import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/**
 * Who uses the data folder: an exclusive SQLite lock on DATA_DIR/server.lock, which the kernel drops
 * when the process ends, however it ends (ADR 0025). POSIX drops a process's lock when it closes any
 * descriptor of the file: nothing else opens it. server.pid names the holder; the lock alone decides.
 */

export const DATABASE_FILE = "inquiries.sqlite";
const LOCK_FILE = "server.lock";
const HOLDER_FILE = "server.pid";

export function holdDataDir(dataDir: string): { release(): void } | null {
  const lock = new DatabaseSync(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    lock.exec("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE");
  } catch (err) {
    lock.close();
    if ((err as { errcode?: number }).errcode === 5) return null;
    throw err;
  }
  const me = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  writeFileSync(join(dataDir, HOLDER_FILE), `${JSON.stringify(me)}\n`);
  return { release: () => lock.close() };
}

export function dataDirHolder(
  dataDir: string,
): { pid: number; host: string; startedAt: string } | null {
  try {
    return JSON.parse(readFileSync(join(dataDir, HOLDER_FILE), "utf8"));
  } catch {
    return null;
  }
}
