-- The reply promise (ADR 0020): who took a lead ("I'm on it") and when, and its one reminder; and
-- the two reports a webhook receiver (a CRM) gets: taken, reminded. Each job on an inquiry is claimed
-- (its *_claimed_at, compare-and-set by the database's clock, so one instance does it) and recorded
-- done (reminded_at, *_reported_at) once it went. Inquiries received before this release are marked
-- done with 0: never reminded or reported (the links they carry had no "I'm on it").
ALTER TABLE inquiries ADD COLUMN taken_at INTEGER;
ALTER TABLE inquiries ADD COLUMN taken_by TEXT;
ALTER TABLE inquiries ADD COLUMN reminder_claimed_at INTEGER;
ALTER TABLE inquiries ADD COLUMN reminded_at INTEGER;
ALTER TABLE inquiries ADD COLUMN taken_report_claimed_at INTEGER;
ALTER TABLE inquiries ADD COLUMN taken_reported_at INTEGER;
ALTER TABLE inquiries ADD COLUMN reminded_report_claimed_at INTEGER;
ALTER TABLE inquiries ADD COLUMN reminded_reported_at INTEGER;
UPDATE inquiries SET reminded_at = 0, taken_reported_at = 0, reminded_reported_at = 0;
CREATE INDEX inquiries_waiting ON inquiries (received_at) WHERE taken_at IS NULL AND reminded_at IS NULL;
