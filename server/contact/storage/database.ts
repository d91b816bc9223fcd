import type { Logger } from "pino";

/**
 * One small SQL interface over SQLite (node:sqlite) and PostgreSQL (pg): queries are written once
 * with `?` placeholders. A storage error is a StorageUnavailableError: the visitor is answered 503
 * with Retry-After, never a false success, and nothing crashes.
 */

export type Row = Record<string, unknown>;

export interface Sql {
  readonly engine: "sqlite" | "postgres";
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

export interface Database extends Sql {
  migrate(): Promise<string[]>;
  ping(): Promise<unknown>;
  close(): Promise<void>;
  describe(): string;
}

export class StorageUnavailableError extends Error {
  override name = "StorageUnavailableError";
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds = 30) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export type StorageWatcher = { failed(reason: string): void; recovered(): void };

// Transitions, not every failure: a held lock would otherwise log every poll.
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
