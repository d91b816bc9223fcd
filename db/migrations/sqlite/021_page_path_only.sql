-- The privacy notice keeps only the path of the page a lead was sent from (issue 39): leads stored
-- before that lose the query string, fragment and host they were kept with.
UPDATE inquiries SET page = substr(page, 1, instr(page, '#') - 1) WHERE instr(page, '#') > 0;
UPDATE inquiries SET page = substr(page, 1, instr(page, '?') - 1) WHERE instr(page, '?') > 0;
UPDATE inquiries SET page = CASE WHEN instr(substr(page, 9), '/') > 0 THEN substr(page, 8 + instr(substr(page, 9), '/')) ELSE '/' END
  WHERE page LIKE 'http://%' OR page LIKE 'https://%';
UPDATE inquiries SET page = '/' WHERE page = '';
