-- Save a batch of submissions in one statement (one round trip, one commit for the batch), each in
-- order, exactly as one at a time would: a known idempotency key answers with its stored answer and
-- counts against no limit; otherwise every limit of the submission is counted, and a submission over
-- any of them is refused; otherwise the inquiry, its deliveries and its answer are stored.
-- The limits' table belongs to rate-limiter-flexible, which creates it before the first submission.
--
-- One element of `batch`:
--   { "key": text|null, "fingerprint": text|null, "answer_status": int, "answer_body": text, "now": bigint,
--     "limits": [{ "key", "max", "expire" }], "deliveries": [{ "id", "channel", "message_id" }],
--     "inquiry": { "id", "received_at", "name", "email", "company", "service", "message", "page",
--                  "user_agent", "ip_hash", "source", "spam", "held_reason", "message_hash" } }
-- One element of the result, in the same order: { "prior": { status, body, fingerprint } },
-- { "blocked_until": bigint } or { "stored": true }.
CREATE FUNCTION save_submissions(batch JSONB) RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  s JSONB;
  l JSONB;
  i JSONB;
  results JSONB := '[]'::JSONB;
  prior RECORD;
  blocked BIGINT;
  now_ms BIGINT;
  counted_points INTEGER;
  counted_expire BIGINT;
BEGIN
  FOR s IN SELECT value FROM jsonb_array_elements(batch) LOOP
    IF s->>'key' IS NOT NULL THEN
      SELECT k.status, k.body, k.fingerprint INTO prior FROM idempotency_keys k WHERE k.key = s->>'key';
      IF FOUND THEN
        results := results || jsonb_build_array(jsonb_build_object('prior',
          jsonb_build_object('status', prior.status, 'body', prior.body, 'fingerprint', prior.fingerprint)));
        CONTINUE;
      END IF;
    END IF;

    blocked := NULL;
    now_ms := (s->>'now')::BIGINT;
    FOR l IN SELECT value FROM jsonb_array_elements(s->'limits') LOOP
      INSERT INTO rate_limits AS r (key, points, expire)
      VALUES (l->>'key', 1, (l->>'expire')::BIGINT)
      ON CONFLICT (key) DO UPDATE SET
        points = CASE WHEN r.expire <= now_ms THEN 1 ELSE r.points + 1 END,
        expire = CASE WHEN r.expire <= now_ms THEN EXCLUDED.expire ELSE r.expire END
      RETURNING r.points, r.expire INTO counted_points, counted_expire;
      IF counted_points > (l->>'max')::INTEGER THEN
        blocked := GREATEST(COALESCE(blocked, 0), counted_expire);
      END IF;
    END LOOP;
    IF blocked IS NOT NULL THEN
      results := results || jsonb_build_array(jsonb_build_object('blocked_until', blocked));
      CONTINUE;
    END IF;

    i := s->'inquiry';
    INSERT INTO inquiries (id, received_at, name, email, company, service, message, page, user_agent, ip_hash,
                           source, spam, held_reason, message_hash)
    VALUES (i->>'id', (i->>'received_at')::BIGINT, i->>'name', i->>'email', i->>'company', i->>'service',
            i->>'message', i->>'page', i->>'user_agent', i->>'ip_hash', i->>'source', (i->>'spam')::BOOLEAN,
            i->>'held_reason', i->>'message_hash');
    INSERT INTO deliveries (id, inquiry_id, channel, message_id, status, attempts, created_at, next_attempt_at)
    SELECT d->>'id', i->>'id', d->>'channel', d->>'message_id', 'pending', 0,
           (i->>'received_at')::BIGINT, (i->>'received_at')::BIGINT
    FROM jsonb_array_elements(s->'deliveries') AS d;
    IF s->>'key' IS NOT NULL THEN
      INSERT INTO idempotency_keys (key, inquiry_id, status, body, created_at, fingerprint)
      VALUES (s->>'key', i->>'id', (s->>'answer_status')::INTEGER, s->>'answer_body',
              (i->>'received_at')::BIGINT, s->>'fingerprint');
    END IF;
    results := results || jsonb_build_array(jsonb_build_object('stored', TRUE));
  END LOOP;
  RETURN results;
END
$$;
