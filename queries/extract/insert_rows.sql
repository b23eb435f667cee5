-- Append one extraction batch's rows to one raw table ({table}).
-- Input: _rcaeval_extract_rows, the batch's Arrow table for that raw table: its columns by
-- name, run_id/case_id dictionary-encoded (stored as plain VARCHAR), plus case_pos, the case
-- run's position in the batch. Param: $base, the bundle_seq before the batch's first case run,
-- so the case runs get base+1, base+2, ... in batch order (queries/extract/stale_keys.sql).
INSERT INTO {table} BY NAME
SELECT * EXCLUDE (case_pos), $base + 1 + case_pos AS bundle_seq
FROM _rcaeval_extract_rows;
