-- Session settings of a release measurement connection: timestamps are read and compared in
-- UTC (a naive captured_at is UTC), as everywhere in rcaeval.
SET TimeZone = 'UTC';
-- No progress bar: a measurement's output is the artifact and the printed table.
SET enable_progress_bar = false;
