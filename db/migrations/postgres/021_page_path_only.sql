-- The privacy notice keeps only the path of the page a lead was sent from (issue 39): leads stored
-- before that lose the query string, fragment and host they were kept with.
UPDATE inquiries SET page = regexp_replace(regexp_replace(page, '[?#].*$', ''), '^https?://[^/]*', '')
  WHERE page ~ '[?#]' OR page ~ '^https?://';
UPDATE inquiries SET page = '/' WHERE page = '';
