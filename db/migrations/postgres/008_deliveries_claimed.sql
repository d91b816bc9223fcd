-- The claims a worker holds, in the order their leases end. A claim is held exactly while
-- claimed_until is set (status 'sending'), so this index holds only those rows, and a claim pass
-- finds the leases that have ended with one short ordered scan. Before, it read every entry of
-- deliveries_due under 'sending', and on PostgreSQL that includes the dead versions of every delivery
-- sent since the last vacuum. bench:contact with PostgreSQL's statement statistics (20,000
-- submissions): 1.22 -> 0.41 ms a claim pass; PostgreSQL's CPU per inquiry until delivered 342 ->
-- 229 µs (marking deliveries sent read the same entries, and now finds them by id).
CREATE INDEX deliveries_claimed ON deliveries (claimed_until) WHERE claimed_until IS NOT NULL;
