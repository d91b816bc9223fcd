-- Spam is held, not thrown away: why an inquiry was held, a hash of its message (to notice the
-- same message sent again), and when the company last got the daily summary of held inquiries.
ALTER TABLE inquiries ADD COLUMN held_reason TEXT;
ALTER TABLE inquiries ADD COLUMN message_hash TEXT;
CREATE INDEX inquiries_message_hash ON inquiries (message_hash, received_at);
UPDATE inquiries SET held_reason = 'honeypot filled' WHERE spam = 1;
INSERT INTO settings (name, value) VALUES ('held_summary_at', '0');
