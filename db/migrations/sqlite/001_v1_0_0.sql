-- The schema of release 1.0.0 (CHANGELOG.md). Times are epoch milliseconds. A later release adds a
-- numbered file beside this one; this file never changes (tests/fixtures/v1.0.0 holds a database it made).

-- What visitors sent. `held`: kept out of the inbox as suspected spam; `taken_*`: "I'm on it";
-- `reminded_at`: when its reply-promise reminder went.
CREATE TABLE inquiries (
  id           TEXT PRIMARY KEY,
  received_at  INTEGER NOT NULL,
  name         TEXT NOT NULL,
  email        TEXT NOT NULL,
  company      TEXT NOT NULL DEFAULT '',
  service      TEXT NOT NULL DEFAULT '',
  message      TEXT NOT NULL,
  page         TEXT,
  user_agent   TEXT,
  ip_hash      TEXT,
  source       TEXT NOT NULL CHECK (source IN ('api', 'form')),
  held         INTEGER NOT NULL DEFAULT 0 CHECK (held IN (0, 1)),
  held_reason  TEXT,
  message_hash TEXT,
  spam_score   REAL,
  suspect      INTEGER NOT NULL DEFAULT 0,
  taken_at     INTEGER,
  taken_by     TEXT,
  reminded_at  INTEGER
);
CREATE INDEX inquiries_received_at ON inquiries (received_at);
CREATE INDEX inquiries_message_hash ON inquiries (message_hash, received_at);

-- The outbox: everything the server sends. `kind`: a lead, its reminder, a report to a webhook
-- (inquiry.taken, inquiry.reminded), or an alert (delivery-failed, held-summary) whose words are in
-- `payload`. `target`: where it goes on its channel (delivery/routing.ts).
CREATE TABLE deliveries (
  id              TEXT PRIMARY KEY,
  inquiry_id      TEXT REFERENCES inquiries (id) ON DELETE CASCADE,
  kind            TEXT NOT NULL DEFAULT 'lead',
  channel         TEXT NOT NULL,
  message_id      TEXT NOT NULL,
  target          TEXT NOT NULL,
  payload         TEXT,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  next_attempt_at INTEGER NOT NULL,
  claimed_by      TEXT,
  claimed_until   INTEGER,
  last_error      TEXT,
  sent_at         INTEGER
);
CREATE UNIQUE INDEX deliveries_one_each ON deliveries (inquiry_id, channel, kind) WHERE kind <> 'delivery-failed';
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE INDEX deliveries_claimed ON deliveries (claimed_until) WHERE claimed_until IS NOT NULL;

CREATE TABLE idempotency_keys (
  key         TEXT PRIMARY KEY,
  inquiry_id  TEXT REFERENCES inquiries (id) ON DELETE CASCADE,
  created_at  INTEGER NOT NULL,
  fingerprint TEXT
);

CREATE TABLE rate_limits (
  key    TEXT PRIMARY KEY,
  points INTEGER NOT NULL DEFAULT 0,
  expire INTEGER
);

-- What the instances on one database share: the routing the server last started with, and when
-- the summary of held messages was last queued.
CREATE TABLE settings (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- The content filter's marks (ADR 0012), deleted with their inquiry.
CREATE TABLE spam_training (
  inquiry_id TEXT PRIMARY KEY REFERENCES inquiries (id) ON DELETE CASCADE,
  label      TEXT NOT NULL CHECK (label IN ('spam', 'genuine')),
  marked_at  INTEGER NOT NULL
);

-- The keys that sign links and form tokens, and the month's address-hash key (ADR 0017).
CREATE TABLE secret_keys (
  purpose    TEXT NOT NULL,
  id         TEXT NOT NULL,
  secret     TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  retired_at INTEGER,
  PRIMARY KEY (purpose, id)
);

-- What the last Spam / Not spam on an inquiry changed, for its Undo.
CREATE TABLE review_undo (
  inquiry_id  TEXT PRIMARY KEY REFERENCES inquiries (id) ON DELETE CASCADE,
  action      TEXT NOT NULL CHECK (action IN ('spam', 'not-spam')),
  held        INTEGER NOT NULL CHECK (held IN (0, 1)),
  held_reason TEXT,
  label       TEXT CHECK (label IN ('spam', 'genuine')),
  marked_at   INTEGER
);
