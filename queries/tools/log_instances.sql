-- The files (by number) that hold at least one line: the instances search_logs knows.
SELECT DISTINCT file_no FROM log_line;
