-- The index's summary and its files, read when a tool server opens the index.
SELECT format, n_lines, first_ts, last_ts FROM log_meta;
