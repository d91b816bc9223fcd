import { createHash } from "node:crypto";
import pg from "pg";
import {
  type Database,
  type Sql,
  StorageUnavailableError,
  type StorageWatcher,
} from "./database.ts";
import { migrate } from "./migrations.ts";

/**
 * PostgreSQL through pg: connecting, lock waits and statements all have an end, so a database that
 * does not answer never hangs a visitor's request (503). An outage is no connection (no SQLSTATE),
 * classes 08, 53, 57 and 58, or a lock waited for too long; anything else is the request's error.
 */

const isPostgresOutage = (e: unknown) => {
  const code = String((e as { code?: unknown }).code);
  return !/^[0-9A-Z]{5}$/.test(code) || /^(08|53|57|58)|^55P03$/.test(code);
};

export function openPostgres(url: string, watcher?: StorageWatcher): Database {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    options: "-c lock_timeout=5000 -c statement_timeout=15000",
    // pg reads BIGINT (oid 20) as a string; the columns' epoch milliseconds fit a number.
    types: {
      getTypeParser: (oid: number, format?: string) =>
        oid === 20 ? Number : pg.types.getTypeParser(oid, format as "text"),
    } as pg.CustomTypesConfig,
  });
  // An idle client lost its connection: the pool replaces it, and queries report their own errors.
  pool.on("error", () => undefined);
  const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      const value = await fn();
      watcher?.recovered();
      return value;
    } catch (e) {
      if (e instanceof StorageUnavailableError || !isPostgresOutage(e)) throw e;
      const err = new StorageUnavailableError(`PostgreSQL: ${(e as Error).message}`);
      watcher?.failed(err.message);
      throw err;
    }
  };
  const on = (client: pg.Pool | pg.PoolClient): Sql => ({
    engine: "postgres",
    async query(sql, params = []) {
      // Without parameters, the simple protocol: a migration holds several statements.
      if (params.length === 0) return (await client.query(sql)).rows;
      let n = 0;
      const text = sql.replace(/\?/g, () => `$${++n}`);
      // Named per statement text: pg prepares it once per connection, then reuses its plan.
      const name = `s${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
      return (await client.query({ name, text, values: params })).rows;
    },
    transaction: (fn) => fn(on(client)),
  });

  const database: Database = {
    engine: "postgres",
    query: (sql, params) => guarded(() => on(pool).query(sql, params)),
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
    ping: () => database.query("SELECT 1"),
    migrate: () => migrate(database, (tx, sql) => tx.query(sql)),
    close: () => pool.end(),
    describe: () => `PostgreSQL ${new URL(url).host}${new URL(url).pathname}`,
  };
  return database;
}
