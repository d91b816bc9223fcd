-- Who confirmed a consultation (issue 54): the name the person gave on the Confirm page, as
-- "I'm on it" asks it; NULL when none was given or before this release (those read "Confirmed").
ALTER TABLE bookings ADD COLUMN confirmed_by TEXT;

-- A request nobody answered is reminded once (kind 'booking-unanswered'): once per request, so a
-- newer request of the same inquiry has its own, and a sent one stays as the record of what went.
DROP INDEX deliveries_one_each;
CREATE UNIQUE INDEX deliveries_one_each ON deliveries (inquiry_id, channel, kind)
  WHERE kind NOT IN ('delivery-failed', 'booking', 'booking-visitor', 'booking-unanswered');
