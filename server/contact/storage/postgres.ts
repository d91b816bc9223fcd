import { createHash } from "node:crypto";
import pg from "pg";
import { type Database, quietWatcher, type Sql, StorageUnavailableError, type StorageWatcher } from "./database.ts";
import { applyMigration, readMigrations } from "./migrations.ts";

/** PostgreSQL through pg: a pool with timeouts, outages as StorageUnavailableError. */

const numberTypes = (oid: number, format?: string) =>
  // BIGINT (epoch milliseconds) as a JavaScript number; everything else as pg parses it.
  oid === 20 ? Number : pg.types.getTypeParser(oid, format as "text");

/** A stable name per statement text: pg prepares a named statement once per connection (parsed and planned once). */
const statementName = (text: string) => `s${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;

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

export function openPostgres(url: string, { watcher = quietWatcher }: { watcher?: StorageWatcher } = {}): Database {
  // A server that does not answer, or a lock someone holds, must not hang a visitor's request:
  // connecting, waiting for a lock and running a statement all have an end (then 503).
  const timeouts = "-c lock_timeout=5000 -c statement_timeout=15000";
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    options: timeouts,
    types: { getTypeParser: numberTypes } as pg.CustomTypesConfig,
  });
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
      // Without parameters, the simple protocol: a migration holds several statements.
      if (params.length === 0) return (await client.query(sql)).rows;
      const text = numbered(sql);
      return (await client.query({ name: statementName(text), text, values: params })).rows;
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
    async close() {
      await pool.end();
    },
    describe: () => `PostgreSQL ${new URL(url).host}${new URL(url).pathname}`,
  };
  return database;
}
