-- The lines of one seq range [$6, $7) a search_logs filter matches, in serving order, for
-- Python to search with the pattern (Python's re, as every search_logs pattern is).
SELECT seq, message FROM log_hits($1, $2, $3, $4, $5)
WHERE seq >= $6 AND seq < $7 ORDER BY seq;
