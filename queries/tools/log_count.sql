-- How many lines a search_logs filter (no pattern) matches.
SELECT count(*) FROM log_hits($1, $2, $3, $4, $5);
