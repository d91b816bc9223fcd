-- The reply promise (ADR 0020): who took a lead ("I'm on it") and when, and its one reminder. A
-- reminder is claimed (reminder_claimed_at, compare-and-set by the database's clock, so one instance
-- sends it) and recorded as sent (reminded_at) once the relay took it. Inquiries received before this
-- release are marked reminded_at = 0: never reminded (the links they carry had no "I'm on it").
ALTER TABLE inquiries ADD COLUMN taken_at BIGINT;
ALTER TABLE inquiries ADD COLUMN taken_by TEXT;
ALTER TABLE inquiries ADD COLUMN reminder_claimed_at BIGINT;
ALTER TABLE inquiries ADD COLUMN reminded_at BIGINT;
UPDATE inquiries SET reminded_at = 0;
CREATE INDEX inquiries_waiting ON inquiries (received_at) WHERE taken_at IS NULL AND reminded_at IS NULL;
