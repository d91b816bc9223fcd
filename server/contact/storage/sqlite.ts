import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import {
  type Database,
  type Sql,
  StorageUnavailableError,
  type StorageWatcher,
} from "./database.ts";
import { migrate } from "./migrations.ts";

/**
 * SQLite through node:sqlite, one connection, group commit (ADR 0009, 0025): the transactions asked
 * for during a COMMIT share the next, each in a savepoint. node:sqlite is synchronous, so SQLite's
 * busy wait would stop the server: it waits 20 ms there, the rest in begin().
 */

export const LOCK_WAIT_MS = 3_000;

const toSqlite = (v: unknown) =>
  typeof v === "boolean" ? (v ? 1 : 0) : v === undefined ? null : v;

// SQLITE_BUSY or SQLITE_LOCKED.
const isBusy = (e: unknown) => [5, 6].includes(((e as { errcode?: number }).errcode ?? 0) & 0xff);

export function openSqlite(file: string, watcher?: StorageWatcher): Database {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file);
  // secure_delete: the privacy notice promises erasure, not bytes left readable in free pages.
  db.exec(
    "PRAGMA busy_timeout = 20; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON;",
  );
  const statements = new Map<string, StatementSync>();
  const run = (sql: string, params: unknown[] = []) => {
    if (!statements.has(sql)) statements.set(sql, db.prepare(sql));
    return (statements.get(sql) as StatementSync).all(
      ...(params.map(toSqlite) as Parameters<StatementSync["all"]>),
    );
  };
  const inTx: Sql = {
    engine: "sqlite",
    query: async (sql, params) => run(sql, params) as never,
    transaction: (fn) => fn(inTx),
  };

  async function begin(): Promise<void> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
      try {
        db.exec("BEGIN IMMEDIATE");
        return;
      } catch (e) {
        if (!isBusy(e)) throw new StorageUnavailableError(`SQLite: ${(e as Error).message}`);
        if (Date.now() >= deadline)
          throw new StorageUnavailableError("SQLite: the database is locked by another process");
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  type Pending = {
    fn: (tx: Sql) => Promise<unknown>;
    resolve: (v: unknown) => void;
    reject: (e: unknown) => void;
  };
  const pending: Pending[] = [];
  let idle: Promise<void> = Promise.resolve();
  let draining = false;

  async function commitTogether(batch: Pending[]) {
    const answers: Array<() => void> = [];
    try {
      await begin();
      for (const item of batch) {
        db.exec("SAVEPOINT one");
        try {
          const value = await item.fn(inTx);
          db.exec("RELEASE one");
          answers.push(() => item.resolve(value));
        } catch (e) {
          db.exec("ROLLBACK TO one; RELEASE one");
          answers.push(() => item.reject(e));
        }
      }
      db.exec("COMMIT");
    } catch (e) {
      // No lock, or the database itself failed (the disk is full, the file is gone): storage, not the request.
      if (db.isOpen && db.isTransaction) db.exec("ROLLBACK");
      const err =
        e instanceof StorageUnavailableError
          ? e
          : new StorageUnavailableError(`SQLite: ${(e as Error).message}`);
      watcher?.failed(err.message);
      for (const item of batch) item.reject(err);
      return;
    }
    watcher?.recovered();
    for (const answer of answers) answer();
  }

  function transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (draining) return;
      draining = true;
      idle = (async () => {
        while (pending.length > 0) {
          // After this turn's I/O callbacks, so that concurrent requests share the commit.
          await new Promise((r) => setImmediate(r));
          await commitTogether(pending.splice(0));
        }
        draining = false;
      })();
    });
  }

  const database: Database = {
    engine: "sqlite",
    async query(sql, params) {
      // A read, a PRAGMA or VACUUM (which no transaction may hold) never runs inside a transaction.
      if (!/^\s*(?:SELECT|PRAGMA|VACUUM)\b/i.test(sql))
        return transaction((tx) => tx.query(sql, params)) as never;
      if (db.isTransaction) await idle;
      return run(sql, params) as never;
    },
    transaction,
    // Through a transaction: ready means a submission could take the write lock now.
    ping: () => transaction((tx) => tx.query("SELECT 1")),
    migrate: () => migrate(database, (_tx, sql) => db.exec(sql)),
    close: () => idle.then(() => db.close()),
    describe: () => `SQLite ${file}`,
  };
  return database;
}
