import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { applyMigration, readMigrations } from "./db-migrations.ts";
import {
  type Database,
  quietWatcher,
  type Row,
  type Sql,
  StorageUnavailableError,
  type StorageWatcher,
} from "./storage.ts";

/**
 * SQLite through node:sqlite, in three parts: the connection and its statement cache; the group
 * commit every transaction goes through; and the Database made of them.
 */

export type SqliteOptions = {
  /** How long a transaction waits for a write lock another process holds before it gives up (503). */
  lockWaitMs?: number;
  watcher?: StorageWatcher;
};

export function openSqlite(file: string, opts: SqliteOptions = {}): Database {
  const conn = connect(file);
  const commits = groupCommit(conn, opts.lockWaitMs ?? 3_000, opts.watcher ?? quietWatcher);
  const database: Database = {
    engine: "sqlite",
    async query(sql, params) {
      // A group transaction runs to its COMMIT without yielding to other requests, so a query can
      // only meet an open one if a transaction awaited real I/O; then it waits for the COMMIT.
      if (conn.db.isTransaction) await commits.idle();
      return conn.run(sql, params);
    },
    transaction: commits.transaction,
    async ping() {
      // Through the group commit: ready means a submission could take the write lock now.
      await database.transaction(async (tx) => tx.query("SELECT 1"));
    },
    async migrate() {
      conn.db.exec(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
      );
      const applied: string[] = [];
      for (const m of readMigrations("sqlite")) {
        await database.transaction(async (tx) => {
          if (await applyMigration(tx, m, (sql) => conn.db.exec(sql))) applied.push(m.name);
        });
      }
      return applied;
    },
    async close() {
      await commits.idle();
      conn.db.close();
    },
    describe: () => `SQLite ${file}`,
  };
  return database;
}

// ---------------------------------------------------------------- the connection

type Connection = {
  db: DatabaseSync;
  prepare(sql: string): StatementSync;
  run<T extends Row>(sql: string, params?: unknown[]): T[];
};

/** SQLite checkpoints its log after this many pages (its default is 1,000). */
export const WAL_CHECKPOINT_PAGES = 10_000;
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

const toSqlite = (v: unknown) => (typeof v === "boolean" ? (v ? 1 : 0) : v === undefined ? null : v);

function connect(file: string): Connection {
  if (file !== ":memory:") mkdirSync(join(file, ".."), { recursive: true });
  const db = new DatabaseSync(file);
  // WAL lets readers work during a write; FULL makes every commit durable before we acknowledge it.
  // node:sqlite is synchronous, so SQLite's own busy wait would stop the whole server (pages too)
  // while another process holds the lock: wait a few milliseconds there, and the rest
  // asynchronously in the group commit's begin().
  db.exec("PRAGMA busy_timeout = 20; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
  // Copy the log into the database every 10,000 pages (about 40 MB), not every 1,000: a submission
  // writes about 10 pages, mostly the same few index pages again, so a checkpoint that comes less
  // often writes each page once for many commits (bench:contact, steady 10,000 x 32: 3,750-3,960 ->
  // 4,150-4,330 a second; 4,000 and 16,000 pages measured within that). The file is cut back to
  // 64 MB after a checkpoint if a long reader ever let it grow past that.
  db.exec(`PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}; PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES};`);
  const statements = new Map<string, StatementSync>();
  const prepare = (sql: string) => {
    let s = statements.get(sql);
    if (!s) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  };
  return {
    db,
    prepare,
    run<T extends Row>(sql: string, params: unknown[] = []): T[] {
      const stmt = prepare(sql);
      return stmt.all(...(params.map(toSqlite) as Parameters<typeof stmt.all>)) as T[];
    },
  };
}

// ---------------------------------------------------------------- the group commit

/** SQLITE_BUSY or SQLITE_LOCKED (node:sqlite puts the result code on `errcode`). */
const isSqliteBusy = (e: unknown) => {
  const code = (e as { errcode?: number }).errcode;
  return typeof code === "number" && ((code & 0xff) === 5 || (code & 0xff) === 6);
};

/**
 * One connection, so one transaction at a time. Group commit: the transactions asked for during
 * one turn of the event loop run together, each in its own savepoint, under one COMMIT (one fsync).
 * Every caller is answered only after that COMMIT, so nothing is acknowledged before it is durable;
 * a failing transaction rolls back to its savepoint without touching the others.
 */
function groupCommit(conn: Connection, lockWaitMs: number, watcher: StorageWatcher) {
  const { db } = conn;
  const inTx: Sql = {
    engine: "sqlite",
    query: async (sql, params) => conn.run(sql, params),
    transaction: (fn) => fn(inTx),
  };
  type Pending = { fn: (tx: Sql) => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };
  let pending: Pending[] = [];
  let scheduled = false;
  let queue: Promise<unknown> = Promise.resolve();

  /** BEGIN IMMEDIATE, waiting (without blocking the event loop) for another process's write lock. */
  async function begin(): Promise<void> {
    const deadline = Date.now() + lockWaitMs;
    let wait = 10;
    for (;;) {
      try {
        db.exec("BEGIN IMMEDIATE");
        return;
      } catch (e) {
        if (!isSqliteBusy(e)) throw new StorageUnavailableError(`SQLite: ${(e as Error).message}`);
        if (Date.now() >= deadline) {
          throw new StorageUnavailableError("SQLite: the database is locked by another process");
        }
        await new Promise((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, 200);
      }
    }
  }

  async function flush() {
    scheduled = false;
    const batch = pending;
    pending = [];
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      await begin();
    } catch (e) {
      watcher.failed((e as Error).message);
      for (const item of batch) item.reject(e);
      return;
    }
    for (const item of batch) {
      db.exec("SAVEPOINT grouped");
      try {
        const value = await item.fn(inTx);
        db.exec("RELEASE grouped");
        outcomes.push({ ok: true, value });
      } catch (e) {
        db.exec("ROLLBACK TO grouped");
        db.exec("RELEASE grouped");
        outcomes.push({ ok: false, value: e });
      }
    }
    try {
      db.exec("COMMIT");
    } catch (e) {
      if (db.isTransaction) db.exec("ROLLBACK");
      const err = new StorageUnavailableError(`SQLite: ${(e as Error).message}`);
      watcher.failed(err.message);
      for (const item of batch) item.reject(err);
      return;
    }
    watcher.recovered();
    batch.forEach((item, i) => {
      const o = outcomes[i];
      if (o?.ok) item.resolve(o.value);
      else item.reject(o?.value);
    });
  }

  return {
    transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        if (scheduled) return;
        scheduled = true;
        // setImmediate: after this turn's I/O callbacks, so concurrent requests share the commit.
        // flush() answers every caller itself; the queue only orders batches and never rejects.
        queue = queue
          .then(() => new Promise((r) => setImmediate(r)))
          .then(flush)
          .catch(() => undefined);
      });
    },
    /** Resolves when the batches asked for so far have committed (or failed). */
    idle: (): Promise<unknown> => queue,
  };
}
