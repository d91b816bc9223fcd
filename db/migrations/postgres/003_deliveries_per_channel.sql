-- One delivery per inquiry and channel (email, webhook, Slack), each with its own attempts, backoff,
-- status and last error. The email jobs become the email channel's deliveries, state and all.
ALTER TABLE email_jobs RENAME TO deliveries;
ALTER TABLE deliveries ADD COLUMN channel TEXT NOT NULL DEFAULT 'email'
  CHECK (channel IN ('email', 'webhook', 'slack'));
ALTER TABLE deliveries ALTER COLUMN channel DROP DEFAULT;
ALTER TABLE deliveries DROP CONSTRAINT email_jobs_inquiry_id_key;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_inquiry_channel UNIQUE (inquiry_id, channel);
ALTER INDEX email_jobs_due RENAME TO deliveries_due;
ALTER INDEX email_jobs_pkey RENAME TO deliveries_pkey;
