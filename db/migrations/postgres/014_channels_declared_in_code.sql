-- A delivery's channel is any channel the code declares (server/contact/delivery/channels.ts): the
-- database no longer lists them, so a new channel needs no migration.
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_channel_check;
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS email_jobs_channel_check;
