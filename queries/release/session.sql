-- Session settings of a release measurement connection: timestamps are read and compared in
-- UTC (a naive captured_at is UTC), as everywhere in rcaeval.
SET TimeZone = 'UTC';
