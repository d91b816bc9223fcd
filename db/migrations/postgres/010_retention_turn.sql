-- When the daily retention pass (inquiries older than the imprint's period are deleted) last ran,
-- so that several instances on one database run it once a day between them.
INSERT INTO settings (name, value) VALUES ('retention_at', '0');
