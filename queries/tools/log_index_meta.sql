-- The index's summary, written once after the last line: its format, how many lines, and
-- the time text of the earliest and latest timed line (ties: the first in serving order,
-- as Python's min and max keep the first).
INSERT INTO log_meta
SELECT $1, (SELECT count(*) FROM log_line),
       (SELECT ts FROM log_line WHERE at_us IS NOT NULL ORDER BY at_us, seq LIMIT 1),
       (SELECT ts FROM log_line WHERE at_us IS NOT NULL ORDER BY at_us DESC, seq LIMIT 1);
