-- Bounded holds (release 1.2, docs/booking.md, docs/decisions/0029). Times are epoch milliseconds.

-- Which bookings hold their time is one rule read by server/booking/store.ts, not a stored flag:
-- a confirmed one, or an asked one whose `hold_until` is ahead and whose inquiry is not held as
-- spam. Holds are made under one lock and checked by overlap of [starts_at, ends_at), so `slot`
-- and its UNIQUE go (a start alone cannot see two times of different lengths overlap). SQLite
-- cannot drop a column's UNIQUE: the table is rebuilt (new, copy, drop, rename).
-- `hold_until`: when an asked time stops holding, NULL when it holds nothing (a pick over a cap);
-- `address`, `network`: the keyed hashes of the picking client, as the rate limits use them;
-- `domain`: the visitor's email domain; `confirmed_at`: when it was confirmed (its invitation's UID).
CREATE TABLE bookings_new (
  inquiry_id   TEXT PRIMARY KEY REFERENCES inquiries (id) ON DELETE CASCADE,
  starts_at    INTEGER NOT NULL,
  ends_at      INTEGER NOT NULL CHECK (ends_at > starts_at),
  zone         TEXT NOT NULL,
  state        TEXT NOT NULL CHECK (state IN ('asked', 'confirmed', 'cancelled', 'declined')),
  hold_until   INTEGER,
  address      TEXT,
  network      TEXT,
  domain       TEXT NOT NULL,
  confirmed_at INTEGER,
  changed_at   INTEGER NOT NULL
);

-- Requests made before the upgrade: 30 minutes long (1.1's consultationMinutes; slots of another
-- length start on their own grid, so a 1.1 row still blocks the slot it started); a time held
-- then keeps holding until the company acts or the time comes (nothing is lost); who picked it was
-- not recorded, so it counts against no client's cap; its domain is read from the inquiry.
INSERT INTO bookings_new
  SELECT b.inquiry_id, b.starts_at, b.starts_at + 1800000, b.zone, b.state,
         CASE WHEN b.state = 'asked' AND b.slot IS NOT NULL THEN b.starts_at END, NULL, NULL,
         LOWER(SUBSTR(i.email, INSTR(i.email, '@') + 1)),
         CASE WHEN b.state = 'confirmed' THEN b.changed_at END, b.changed_at
  FROM bookings b JOIN inquiries i ON i.id = b.inquiry_id;
DROP TABLE bookings;
ALTER TABLE bookings_new RENAME TO bookings;
CREATE INDEX bookings_starts_at ON bookings (starts_at);

-- A booking message's sent rows stay (what went, and when: the next request waits for it); only
-- one not yet sent is replaced, under the booking's row lock, so the one-per-kind index spares them.
DROP INDEX deliveries_one_each;
CREATE UNIQUE INDEX deliveries_one_each ON deliveries (inquiry_id, channel, kind)
  WHERE kind NOT IN ('delivery-failed', 'booking', 'booking-visitor');
