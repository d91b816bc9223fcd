-- The rate limits' counters: one row per key (a limit's prefix and an address or network hash),
-- counted by the pipeline itself (server/contact/storage/intake.ts).
-- Until now rate-limiter-flexible made this table at start, in this same shape; IF NOT EXISTS keeps its rows.
CREATE TABLE IF NOT EXISTS rate_limits (
  key    TEXT PRIMARY KEY,
  points INTEGER NOT NULL DEFAULT 0,
  expire INTEGER
);
