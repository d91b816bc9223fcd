-- Client addresses are now hashed with a key kept outside the database (IP_HASH_KEY or a key file):
-- the salt that lived beside the hashes goes. An idempotency answer remembers which message it
-- answered, so the same key with another message is refused (422) instead of dropping it.
DELETE FROM settings WHERE name = 'ip_hash_salt';
ALTER TABLE idempotency_keys ADD COLUMN fingerprint TEXT;
