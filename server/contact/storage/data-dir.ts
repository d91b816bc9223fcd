import {
  chmodSync,
  closeSync,
  type Dirent,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/**
 * The data folder (DATA_DIR) as a whole: who uses it, who may read it, and which copies of the
 * database it holds besides the live one (docs/decisions/0017-keys-in-the-database.md).
 */

/** The live SQLite database in a data folder. */
export const DATABASE_FILE = "inquiries.sqlite";
/** Written by a server while it uses the data folder, touched every few seconds, removed when it stops. */
const IN_USE_FILE = "server.lock";
const TOUCH_MS = 5_000;
/** A mark not touched for this long belongs to a server that is gone (killed, or its machine died). */
const STALE_MS = 30_000;

export type DataDirUser = { pid: number; host: string; startedAt: string };

/**
 * Everything holding a lead is readable by its owner alone, whatever the umask: files created from
 * now on (the process's umask), and what an earlier release or the operator made (tightened here).
 * What it may not change (another user's file, `lost+found`) is skipped, and returned.
 */
export function keepPrivate(dataDir: string): string[] {
  process.umask(0o077);
  const untouched: string[] = [];
  if (!existsSync(dataDir)) return untouched;
  const tighten = (path: string, mode: number) => {
    try {
      chmodSync(path, mode);
      return true;
    } catch {
      untouched.push(path);
      return false;
    }
  };
  const walk = (dir: string, depth: number) => {
    if (!tighten(dir, 0o700)) return;
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      // Not ours to list: named above if its mode could not be changed either.
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < 2) walk(path, depth + 1);
      else if (entry.isFile()) tighten(path, 0o600);
    }
  };
  walk(dataDir, 0);
  return untouched;
}

/** Mark the data folder as used by this process until `release` (the server, while it runs on SQLite). */
export function markInUse(dataDir: string): { release(): void } {
  const file = join(dataDir, IN_USE_FILE);
  const me: DataDirUser = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
  writeFileSync(file, `${JSON.stringify(me)}\n`, { mode: 0o600 });
  const timer = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(file, now, now);
    } catch {
      // Removed from under us (a restore --force that ignored it cannot happen: restore refuses): write it again.
      writeFileSync(file, `${JSON.stringify(me)}\n`, { mode: 0o600 });
    }
  }, TOUCH_MS);
  timer.unref();
  return {
    release() {
      clearInterval(timer);
      rmSync(file, { force: true });
    },
  };
}

/**
 * The server using the data folder, if one is: its mark was touched recently, or it names a process
 * alive on this machine. Null when none is (never started, stopped, or gone long enough).
 */
export function dataDirUser(dataDir: string, now = Date.now()): DataDirUser | null {
  const file = join(dataDir, IN_USE_FILE);
  if (!existsSync(file)) return null;
  let user: DataDirUser;
  try {
    user = JSON.parse(readFileSync(file, "utf8")) as DataDirUser;
  } catch {
    user = { pid: 0, host: "unknown", startedAt: "unknown" };
  }
  if (now - statSync(file).mtimeMs < STALE_MS) return user;
  if (user.host === hostname() && user.pid > 0 && alive(user.pid)) return user;
  return null;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Is this file an SQLite database (its first 16 bytes)? */
export function isSqliteFile(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString("latin1") === "SQLite format 3\0";
  } finally {
    closeSync(fd);
  }
}

/**
 * The copies of the database a data folder holds besides the live one: what `restore --force` kept
 * (`inquiries.sqlite.replaced-*`), and backups written into it (any other SQLite file, at the top or
 * one folder down). `forget` and the retention pass erase in each of them too.
 */
export function databaseCopies(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  const live = new Set([DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`, `${DATABASE_FILE}-journal`]);
  const found: string[] = [];
  const look = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && depth < 1 && entry.name !== "mail") look(path, depth + 1);
      else if (entry.isFile() && !(depth === 0 && live.has(entry.name)) && !/-(wal|shm|journal)$/.test(entry.name)) {
        // One it may not read is named as a copy too: the erasure then says it could not reach it.
        try {
          if (isSqliteFile(path)) found.push(path);
        } catch {
          found.push(path);
        }
      }
    }
  };
  look(dataDir, 0);
  return found.sort();
}
