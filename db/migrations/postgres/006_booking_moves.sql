-- The visitor's reminder and the move of a confirmed call (release 1.3, docs/booking.md, ADR 0029).
-- Times are epoch milliseconds.

-- `sequence`: the invitation's SEQUENCE (0 when confirmed, one more for each move confirmed; a
-- cancellation says one more still). `reminded_at`: when the visitor's reminder was claimed, once
-- for the time it names (a move confirmed clears it). `move_*`: a new time the visitor picked for a
-- confirmed call, waiting for the company: the confirmed time stays until the company confirms the
-- move; the new time holds until `move_hold_until`. Rows of before the upgrade: sequence 0 (what
-- their invitations said), never reminded, no move.
ALTER TABLE bookings
  ADD COLUMN sequence        INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN reminded_at     BIGINT,
  ADD COLUMN move_starts_at  BIGINT,
  ADD COLUMN move_ends_at    BIGINT,
  ADD COLUMN move_zone       TEXT,
  ADD COLUMN move_hold_until BIGINT,
  ADD CONSTRAINT bookings_move_ends_after_start CHECK (move_ends_at > move_starts_at);
