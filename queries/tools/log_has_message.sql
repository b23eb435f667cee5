-- Whether some line's message is exactly $1 (evidence quoting a line without its id).
SELECT EXISTS (SELECT 1 FROM log_line WHERE message = $1);
