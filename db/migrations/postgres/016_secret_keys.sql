-- The keys that sign the links in a lead and the form tokens, and the month's key of the address
-- hashes, live in the database (ADR 0017): every backup, Litestream replica and dump carries them,
-- so links sent before a recovery keep working, and instances sharing a database agree on them.
-- A key is current until retired_at; a retired one still checks what it signed until it expires.
CREATE TABLE IF NOT EXISTS secret_keys (
  purpose    TEXT NOT NULL,
  id         TEXT NOT NULL,
  secret     TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  retired_at BIGINT,
  PRIMARY KEY (purpose, id)
);
