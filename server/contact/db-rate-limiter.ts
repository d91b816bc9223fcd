import type { RateLimiterLike } from "./storage.ts";

export type LimiterOptions = { keyPrefix: string; points: number; duration: number };
// Each limiter class types its own options; any of them will do here.
type LimiterClass = new (opts: never, ready: (err?: Error) => void) => RateLimiterLike;

/** A rate limiter on table rate_limits, resolved once its table exists. */
export function createLimiter(
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
