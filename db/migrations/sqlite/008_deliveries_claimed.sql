-- The claims a worker holds, in the order their leases end (as on PostgreSQL, migration 008 there):
-- a claim is held exactly while claimed_until is set, and a claim pass finds the leases that have
-- ended with one short ordered scan of this index.
CREATE INDEX deliveries_claimed ON deliveries (claimed_until) WHERE claimed_until IS NOT NULL;
