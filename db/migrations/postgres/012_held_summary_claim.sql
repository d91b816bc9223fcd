-- The held-spam summary is marked sent only once it is sent (held_summary_at); this row is the short
-- claim that lets one instance at a time try, so a failed summary is tried again, not lost.
INSERT INTO settings (name, value) VALUES ('held_summary_claim', '0');
