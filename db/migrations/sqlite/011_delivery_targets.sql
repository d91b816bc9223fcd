-- Where each delivery goes, for leads routed by service line (CONTACT_ROUTES): the email recipients,
-- or the route whose Slack or webhook receiver it uses ('default': the general one). Rows from
-- before this migration went to the general inbox and receivers.
ALTER TABLE deliveries ADD COLUMN target TEXT;
