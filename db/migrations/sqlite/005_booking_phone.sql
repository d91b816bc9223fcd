-- The visitor's phone number, when the consultation is a phone call (release 1.3, docs/booking.md,
-- docs/decisions/0029). `phone`: the number to call in its E.164 form (+13035550142), asked on the
-- booking page when site.booking.place is "phone"; NULL with a video link, and for requests made
-- before (no number was asked then). Kept with the booking and erased with it (the cascade).
ALTER TABLE bookings ADD COLUMN phone TEXT;
