-- The consultation booking (release 1.1, docs/decisions/0029). Times are epoch milliseconds.

-- One request per inquiry, erased with it. `slot`: the start it holds, NULL when it holds none
-- (a message held as spam, a cancelled or declined request): the unique index, not the code, makes
-- sure two visitors never hold the same time, whichever instance they reach. `zone`: the visitor's
-- time zone, for the words they read.
CREATE TABLE bookings (
  inquiry_id TEXT PRIMARY KEY REFERENCES inquiries (id) ON DELETE CASCADE,
  starts_at  BIGINT NOT NULL,
  zone       TEXT NOT NULL,
  state      TEXT NOT NULL CHECK (state IN ('asked', 'confirmed', 'cancelled', 'declined')),
  slot       BIGINT UNIQUE,
  changed_at BIGINT NOT NULL
);

-- The last good copy of each calendar feed (BOOKING_FEEDS), shared by the instances: `feed` is a
-- hash of its secret address, `busy` its busy times ahead as JSON [[start, end], …], `read_at`
-- when it was last read well. Each instance reads on its own turn; the newest read wins.
CREATE TABLE booking_feeds (
  feed    TEXT PRIMARY KEY,
  busy    TEXT NOT NULL,
  read_at BIGINT NOT NULL
);
