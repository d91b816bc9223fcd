import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { RateLimiterPostgres, RateLimiterSQLite } from "rate-limiter-flexible";

/**
 * One small SQL interface over both engines: SQLite through node:sqlite (the default: a file under
 * DATA_DIR) and PostgreSQL through pg (when DATABASE_URL is set). Queries are written once with `?`
 * placeholders; the PostgreSQL side numbers them.
 */

export type Engine = "sqlite" | "postgres";
export type Row = Record<string, unknown>;

export interface Sql {
  readonly engine: Engine;
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Run `fn` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

export interface Database extends Sql {
  migrate(): Promise<string[]>;
  /** A cheap query that proves the database answers (readiness). */
  ping(): Promise<void>;
  /** A rate limiter that keeps its counters in this database (table `rate_limits`). */
  rateLimiter(opts: { keyPrefix: string; points: number; duration: number }): Promise<RateLimiterLike>;
  close(): Promise<void>;
  describe(): string;
}

export interface RateLimiterLike {
  consume(key: string, points?: number): Promise<unknown>;
}

/**
 * The database cannot be used right now (locked by another process, unreachable, out of space):
 * the visitor is answered 503 with Retry-After, never a false success, and nothing crashes.
 */
export class StorageUnavailableError extends Error {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds = 30) {
    super(message);
    this.name = "StorageUnavailableError";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Told once when storage stops answering and once when it answers again (one log line each). */
export type StorageWatcher = { failed(reason: string): void; recovered(): void };

/** A watcher that logs the transitions, not every failure: a held lock would otherwise log every poll. */
export function logStorageTransitions(log: {
  warn: (o: object, m: string) => void;
  info: (o: object, m: string) => void;
}): StorageWatcher {
  let down: string | null = null;
  return {
    failed(reason) {
      if (down === null) log.warn({ reason }, "storage unavailable");
      down = reason;
    },
    recovered() {
      if (down !== null) log.info({ was: down }, "storage available again");
      down = null;
    },
  };
}

const quietWatcher: StorageWatcher = { failed() {}, recovered() {} };

/** SQLITE_BUSY or SQLITE_LOCKED (node:sqlite puts the result code on `errcode`). */
const isSqliteBusy = (e: unknown) => {
  const code = (e as { errcode?: number }).errcode;
  return typeof code === "number" && ((code & 0xff) === 5 || (code & 0xff) === 6);
};

const migrationsDir = new URL("../../db/migrations/", import.meta.url).pathname;

function readMigrations(engine: Engine) {
  const dir = join(migrationsDir, engine);
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f, sql: readFileSync(join(dir, f), "utf8") }));
}

/** Apply one migration inside `tx`, unless it was applied before. True if it ran. */
async function applyMigration(
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

type LimiterOptions = { keyPrefix: string; points: number; duration: number };
// Each limiter class types its own options; any of them will do here.
type LimiterClass = new (opts: never, ready: (err?: Error) => void) => RateLimiterLike;

/** A rate limiter on table rate_limits, resolved once its table exists. */
function createLimiter(
  Limiter: LimiterClass,
  store: Record<string, unknown>,
  opts: LimiterOptions,
): Promise<RateLimiterLike> {
  return new Promise((resolve, reject) => {
    const limiter: RateLimiterLike = new Limiter(
      { ...store, ...opts, tableName: "rate_limits", clearExpiredByTimeout: false } as never,
      (err?: Error) => (err ? reject(err) : resolve(limiter)),
    );
  });
}

// ---------------------------------------------------------------- SQLite

export type SqliteOptions = {
  /** How long a transaction waits for a write lock another process holds before it gives up (503). */
  lockWaitMs?: number;
  watcher?: StorageWatcher;
};

export function openSqlite(file: string, opts: SqliteOptions = {}): Database {
  const lockWaitMs = opts.lockWaitMs ?? 3_000;
  const watcher = opts.watcher ?? quietWatcher;
  if (file !== ":memory:") mkdirSync(join(file, ".."), { recursive: true });
  const db = new DatabaseSync(file);
  // WAL lets readers work during a write; FULL makes every commit durable before we acknowledge it.
  // node:sqlite is synchronous, so SQLite's own busy wait would stop the whole server (pages too)
  // while another process holds the lock: wait a few milliseconds there, and the rest
  // asynchronously in begin() below.
  db.exec("PRAGMA busy_timeout = 20; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");

  const statements = new Map<string, ReturnType<DatabaseSync["prepare"]>>();
  const prepare = (sql: string) => {
    let s = statements.get(sql);
    if (!s) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  };
  const toSqlite = (v: unknown) => (typeof v === "boolean" ? (v ? 1 : 0) : v === undefined ? null : v);
  const run = <T extends Row>(sql: string, params: unknown[] = []): T[] => {
    const stmt = prepare(sql);
    const args = params.map(toSqlite) as Parameters<typeof stmt.all>;
    return stmt.all(...args) as T[];
  };

  // One connection, so one transaction at a time. Group commit: the transactions asked for during
  // one turn of the event loop run together, each in its own savepoint, under one COMMIT (one
  // fsync). Every caller is answered only after that COMMIT, so nothing is acknowledged before it is
  // durable; a failing transaction rolls back to its savepoint without touching the others.
  let queue: Promise<unknown> = Promise.resolve();
  const inTx: Sql = { engine: "sqlite", query: async (sql, params) => run(sql, params), transaction: (fn) => fn(inTx) };
  type Pending = { fn: (tx: Sql) => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };
  let pending: Pending[] = [];
  let scheduled = false;

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

  const database: Database = {
    engine: "sqlite",
    async query(sql, params) {
      // A group transaction runs to its COMMIT without yielding to other requests, so a query can
      // only meet an open one if a transaction awaited real I/O; then it waits for the COMMIT.
      if (db.isTransaction) await queue;
      return run(sql, params);
    },
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
    async ping() {
      // Through the group commit: ready means a submission could take the write lock now.
      await database.transaction(async (tx) => tx.query("SELECT 1"));
    },
    async migrate() {
      db.exec(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
      );
      const applied: string[] = [];
      for (const m of readMigrations("sqlite")) {
        await database.transaction(async (tx) => {
          if (await applyMigration(tx, m, (sql) => db.exec(sql))) applied.push(m.name);
        });
      }
      return applied;
    },
    async rateLimiter(opts) {
      // rate-limiter-flexible speaks better-sqlite3; node:sqlite has the same prepare/get/run shape.
      const client = {
        prepare: (sql: string) => {
          const s = prepare(sql);
          return {
            run: (...a: unknown[]) => s.run(...(a.map(toSqlite) as Parameters<typeof s.run>)),
            get: (...a: unknown[]) => s.get(...(a.map(toSqlite) as Parameters<typeof s.get>)),
            all: (...a: unknown[]) => s.all(...(a.map(toSqlite) as Parameters<typeof s.all>)),
          };
        },
        transaction: (fn: () => unknown) => () => {
          // Counters need no fsync of their own: committed with synchronous=NORMAL (in WAL mode the
          // next FULL commit makes them durable too). Losing the last second of counters in a power
          // cut is harmless; an inquiry's commit stays FULL. Measured: 3 fsyncs a request become 1.
          const own = !db.isTransaction;
          if (own) db.exec("PRAGMA synchronous = NORMAL");
          db.exec("SAVEPOINT rate_limiter");
          try {
            const r = fn();
            db.exec("RELEASE rate_limiter");
            return r;
          } catch (e) {
            db.exec("ROLLBACK TO rate_limiter");
            db.exec("RELEASE rate_limiter");
            throw e;
          } finally {
            if (own) db.exec("PRAGMA synchronous = FULL");
          }
        },
      };
      await queue;
      return createLimiter(RateLimiterSQLite, { storeClient: client, storeType: "better-sqlite3" }, opts);
    },
    async close() {
      await queue;
      db.close();
    },
    describe: () => `SQLite ${file}`,
  };
  return database;
}

// ---------------------------------------------------------------- PostgreSQL

const numberTypes = (oid: number, format?: string) =>
  // BIGINT (epoch milliseconds) as a JavaScript number; everything else as pg parses it.
  oid === 20 ? Number : pg.types.getTypeParser(oid, format as "text");

const statementNames = new Map<string, string>();
/** A stable name for a statement text (pg prepares a named statement once per connection). */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `s${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    if (statementNames.size < 1000) statementNames.set(text, name);
  }
  return name;
}

const numbered = (sql: string) => {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
};

/**
 * A PostgreSQL error that means the database cannot serve us now, not that the request was wrong:
 * no connection (no SQLSTATE), connection exceptions (08), resources (53), operator intervention
 * and timeouts (57), a lock we waited too long for (55P03), system errors (58).
 */
const isPostgresOutage = (e: unknown) => {
  const code = (e as { code?: unknown }).code;
  if (typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return /^(08|53|57|58)/.test(code) || code === "55P03";
};

export type PostgresOptions = { poolSize?: number; watcher?: StorageWatcher };

export function openPostgres(url: string, opts: PostgresOptions | number = {}): Database {
  const { poolSize = 10, watcher = quietWatcher } = typeof opts === "number" ? { poolSize: opts } : opts;
  // A server that does not answer, or a lock someone holds, must not hang a visitor's request:
  // connecting, waiting for a lock and running a statement all have an end (then 503).
  const timeouts = "-c lock_timeout=5000 -c statement_timeout=15000";
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    options: timeouts,
    types: { getTypeParser: numberTypes } as pg.CustomTypesConfig,
  });
  // The rate limiters' own pool: a limit is checked inside the inquiry's transaction, which already
  // holds a connection of the main pool (sharing it could leave every connection waiting for
  // another). Counters need no flush to disk before the answer: synchronous_commit=off.
  let limiterPool: pg.Pool | null = null;
  const limiters = () => {
    if (!limiterPool) {
      limiterPool = new pg.Pool({
        connectionString: url,
        max: 4,
        connectionTimeoutMillis: 5_000,
        options: `${timeouts} -c synchronous_commit=off`,
      });
      limiterPool.on("error", () => {});
    }
    return limiterPool;
  };
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it. Queries report their own errors.
  });
  /** Run `fn`; an outage becomes StorageUnavailableError (503), and the watcher hears of it. */
  const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      const value = await fn();
      watcher.recovered();
      return value;
    } catch (e) {
      if (e instanceof StorageUnavailableError) throw e;
      if (!isPostgresOutage(e)) throw e;
      const err = new StorageUnavailableError(`PostgreSQL: ${(e as Error).message}`);
      watcher.failed(err.message);
      throw err;
    }
  };
  const on = (client: pg.Pool | pg.PoolClient): Sql => ({
    engine: "postgres",
    async query(sql, params = []) {
      const text = numbered(sql);
      // With parameters: a named prepared statement, parsed and planned once per connection (the
      // texts are a handful of fixed shapes). Without: the simple protocol (migrations hold several statements).
      const res =
        params.length > 0
          ? await client.query({ name: statementName(text), text, values: params })
          : await client.query(text);
      return res.rows;
    },
    transaction: (fn) => fn(on(client)),
  });
  const direct = on(pool);

  const database: Database = {
    engine: "postgres",
    query: (sql, params) => guarded(() => direct.query(sql, params)),
    transaction(fn) {
      return guarded(async () => {
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          const value = await fn(on(client));
          await client.query("COMMIT");
          return value;
        } catch (e) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw e;
        } finally {
          client.release();
        }
      });
    },
    async ping() {
      await database.query("SELECT 1");
    },
    async migrate() {
      const applied: string[] = [];
      await database.transaction(async (tx) => {
        // Several instances may start together: one migrates, the others wait for it.
        await tx.query("SELECT pg_advisory_xact_lock(7305200001)");
        await tx.query(
          "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
        );
        for (const m of readMigrations("postgres")) {
          if (await applyMigration(tx, m, (sql) => tx.query(sql))) applied.push(m.name);
        }
      });
      return applied;
    },
    rateLimiter(opts) {
      return createLimiter(RateLimiterPostgres, { storeClient: limiters(), storeType: "pool" }, opts);
    },
    async close() {
      await limiterPool?.end();
      await pool.end();
    },
    describe: () => `PostgreSQL ${new URL(url).host}${new URL(url).pathname}`,
  };
  return database;
}

export function openDatabase(opts: { databaseUrl?: string; dataDir: string }, watcher?: StorageWatcher): Database {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, { watcher })
    : openSqlite(join(opts.dataDir, "inquiries.sqlite"), { watcher });
}
