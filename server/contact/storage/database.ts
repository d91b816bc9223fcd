import type { Logger } from "pino";
/**
 * One small SQL interface over SQLite (node:sqlite, the default) and PostgreSQL (pg, with
 * DATABASE_URL): sqlite.ts and postgres.ts implement it, open.ts picks one. Queries are written
 * once with `?` placeholders; the PostgreSQL side numbers them.
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
  close(): Promise<void>;
  describe(): string;
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
export function logStorageTransitions(log: Pick<Logger, "warn" | "info">): StorageWatcher {
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

/** A watcher for tools and tests that need no log lines. */
export const quietWatcher: StorageWatcher = { failed() {}, recovered() {} };
