-- A delivery's channel is any channel the code declares (server/contact/delivery/channels.ts): the
-- database no longer lists them, so a new channel needs no migration. SQLite cannot drop a CHECK, so
-- the table is made again without it, rows, claims and indexes kept.
CREATE TABLE deliveries_new (
  id              TEXT PRIMARY KEY,
  inquiry_id      TEXT NOT NULL REFERENCES inquiries (id) ON DELETE CASCADE,
  channel         TEXT NOT NULL,
  message_id      TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  claimed_by      TEXT,
  claimed_until   INTEGER,
  last_error      TEXT,
  sent_at         INTEGER,
  target          TEXT,
  UNIQUE (inquiry_id, channel)
);
INSERT INTO deliveries_new (id, inquiry_id, channel, message_id, status, attempts, created_at, next_attempt_at,
                            claimed_by, claimed_until, last_error, sent_at, target)
  SELECT id, inquiry_id, channel, message_id, status, attempts, created_at, next_attempt_at,
         claimed_by, claimed_until, last_error, sent_at, target
  FROM deliveries;
DROP TABLE deliveries;
ALTER TABLE deliveries_new RENAME TO deliveries;
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_claimed ON deliveries (claimed_until) WHERE claimed_until IS NOT NULL;
