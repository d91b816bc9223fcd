-- Inquiries, their email jobs (the outbox) and idempotency answers. Times are epoch milliseconds.
CREATE TABLE inquiries (
  id          TEXT PRIMARY KEY,
  received_at BIGINT NOT NULL,
  name        TEXT NOT NULL,
  email       TEXT NOT NULL,
  company     TEXT NOT NULL DEFAULT '',
  service     TEXT NOT NULL DEFAULT '',
  message     TEXT NOT NULL,
  page        TEXT,
  user_agent  TEXT,
  ip_hash     TEXT,
  source      TEXT NOT NULL CHECK (source IN ('api', 'form')),
  spam        BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX inquiries_received_at ON inquiries (received_at);

CREATE TABLE email_jobs (
  id              TEXT PRIMARY KEY,
  inquiry_id      TEXT NOT NULL UNIQUE REFERENCES inquiries (id) ON DELETE CASCADE,
  message_id      TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  created_at      BIGINT NOT NULL,
  next_attempt_at BIGINT NOT NULL,
  claimed_by      TEXT,
  claimed_until   BIGINT,
  last_error      TEXT,
  sent_at         BIGINT
);
CREATE INDEX email_jobs_due ON email_jobs (status, next_attempt_at);

CREATE TABLE idempotency_keys (
  key         TEXT PRIMARY KEY,
  inquiry_id  TEXT REFERENCES inquiries (id) ON DELETE CASCADE,
  status      INTEGER NOT NULL,
  body        TEXT NOT NULL,
  created_at  BIGINT NOT NULL
);

-- The salt for hashing client addresses, made once per database.
CREATE TABLE settings (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO settings (name, value) VALUES ('ip_hash_salt', md5(random()::text || clock_timestamp()::text) || md5(random()::text));
