-- One page of the lines a search_logs filter (no pattern) matches, in serving order.
SELECT seq, file_no, line_no, ts, level, component, message
FROM log_hits($1, $2, $3, $4, $5) ORDER BY seq LIMIT $6 OFFSET $7;
