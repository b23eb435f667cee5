-- The message of the line with a given id (rcaeval.tools._logstore.line_id): its line number
-- in any of the files whose id stem the id names ($1, a list of file_no); when two files share
-- an id stem the later line wins, as an id-keyed map of every line in serving order would keep.
SELECT message FROM log_line
WHERE list_contains($1, file_no) AND line_no = $2
ORDER BY seq DESC
LIMIT 1;
