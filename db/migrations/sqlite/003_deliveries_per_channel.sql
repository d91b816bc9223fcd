-- One delivery per inquiry and channel (email, webhook, Slack), each with its own attempts, backoff,
-- status and last error. The email jobs become the email channel's deliveries, state and all.
CREATE TABLE deliveries (
  id              TEXT PRIMARY KEY,
  inquiry_id      TEXT NOT NULL REFERENCES inquiries (id) ON DELETE CASCADE,
  channel         TEXT NOT NULL CHECK (channel IN ('email', 'webhook', 'slack')),
  message_id      TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  claimed_by      TEXT,
  claimed_until   INTEGER,
  last_error      TEXT,
  sent_at         INTEGER,
  UNIQUE (inquiry_id, channel)
);
INSERT INTO deliveries (id, inquiry_id, channel, message_id, status, attempts, created_at, next_attempt_at,
                        claimed_by, claimed_until, last_error, sent_at)
  SELECT id, inquiry_id, 'email', message_id, status, attempts, created_at, next_attempt_at,
         claimed_by, claimed_until, last_error, sent_at
  FROM email_jobs;
DROP TABLE email_jobs;
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
