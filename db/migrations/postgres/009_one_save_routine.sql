-- One save routine for both engines, in the server's TypeScript (server/contact/storage/intake.ts):
-- the batching functions go. An Idempotency-Key now keeps the outcome it was given (the inquiry it
-- stored, and the fingerprint of its message); each door renders that outcome, so the HTTP answer
-- (status and body) is no longer stored.
DROP FUNCTION IF EXISTS save_submissions(JSONB);
DROP FUNCTION IF EXISTS save_submissions_in_order(JSONB);
DELETE FROM idempotency_keys WHERE inquiry_id IS NULL;
ALTER TABLE idempotency_keys DROP COLUMN status, DROP COLUMN body;
