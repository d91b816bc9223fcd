-- An Idempotency-Key now keeps the outcome it was given (the inquiry it stored, and the fingerprint
-- of its message); each door renders that outcome, so the HTTP answer (status and body) is no
-- longer stored. (On PostgreSQL this migration also drops the batching functions.)
DELETE FROM idempotency_keys WHERE inquiry_id IS NULL;
ALTER TABLE idempotency_keys DROP COLUMN status;
ALTER TABLE idempotency_keys DROP COLUMN body;
