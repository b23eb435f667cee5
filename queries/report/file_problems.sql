-- The files of a run's cases that extraction could not use as they are: raw_file rows whose
-- status is not 'ok' (parse_error, not_utf8, too_large, unreadable, outside_bundle, ...),
-- with extraction's detail (for a parse error: the message, line, column and byte offset).
-- Decides what `explain`, the detail report, the run summary and --results-json show as a
-- case's file problems. Parameters: $run_id.
SELECT case_id, file, kind, status, detail
FROM raw_file
WHERE run_id = $run_id AND status <> 'ok'
ORDER BY case_id, file
