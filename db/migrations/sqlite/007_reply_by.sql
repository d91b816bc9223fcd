-- A lead's "Reply by", fixed when it is received (issue 55, docs/decisions/0020): its email said it,
-- so changing the office hours, holidays or the promise later moves no lead already received.
-- `reply_due_at`: when its promise runs out (epoch milliseconds), NULL when the office has no open
-- hours ahead to count; `reply_hours`: the business hours it was promised. A lead from before has
-- neither: the server fills both at its start from the rule in force then (server/contact/review/
-- promise.ts), which business time makes too much for SQL; until then it is read from that rule.
ALTER TABLE inquiries ADD COLUMN reply_due_at INTEGER;
ALTER TABLE inquiries ADD COLUMN reply_hours REAL;
