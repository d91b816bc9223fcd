-- The content filter (ADR 0012): each inquiry's spam score, and the operator's marks it learns from.
-- A mark names an inquiry and holds no text of its own: when retention or `forget` deletes the
-- inquiry, the filter forgets the mark with it.
ALTER TABLE inquiries ADD COLUMN spam_score DOUBLE PRECISION;
CREATE TABLE spam_training (
  inquiry_id TEXT PRIMARY KEY REFERENCES inquiries (id) ON DELETE CASCADE,
  label      TEXT NOT NULL CHECK (label IN ('spam', 'genuine')),
  marked_at  BIGINT NOT NULL
);
