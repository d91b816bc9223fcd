-- What the last Spam / Not spam on an inquiry changed (issue 37): its Undo puts exactly this back,
-- held or not, the reason, and the filter's mark as it was (none: no mark). One row per inquiry.
CREATE TABLE review_undo (
  inquiry_id  TEXT PRIMARY KEY REFERENCES inquiries (id) ON DELETE CASCADE,
  action      TEXT NOT NULL CHECK (action IN ('spam', 'release')),
  held        INTEGER NOT NULL CHECK (held IN (0, 1)),
  held_reason TEXT,
  label       TEXT CHECK (label IN ('spam', 'genuine')),
  marked_at   INTEGER
);
