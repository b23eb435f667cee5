-- The lines of a list of seqs (a page a pattern search picked, or a range of every line),
-- in serving order.
SELECT seq, file_no, line_no, ts, level, component, message
FROM log_line WHERE seq >= $1 AND seq < $2 AND ($3 IS NULL OR list_contains($3, seq))
ORDER BY seq;
