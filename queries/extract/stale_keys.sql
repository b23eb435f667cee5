-- Which case runs of an extraction batch are already in the store, and where their rows are.
-- Input: _rcaeval_extract_keys (run_id, case_id), the batch. One row:
--   stale  case runs of the batch with a raw_bundle row (their raw rows get replaced);
--   lo, hi the bundle_seq range of those rows (NULL when any was written without one, so the
--          delete then looks at every row: queries/extract/delete_keys.sql);
--   base   the highest bundle_seq in the store: the batch's case runs get base+1, base+2, ...
-- Reads raw_bundle only (one row per case run), never the big raw tables.
SELECT count(b.run_id) AS stale,
       CASE WHEN count(b.run_id) = count(b.bundle_seq) THEN min(b.bundle_seq) END AS lo,
       CASE WHEN count(b.run_id) = count(b.bundle_seq) THEN max(b.bundle_seq) END AS hi,
       (SELECT coalesce(max(bundle_seq), 0) FROM raw_bundle) AS base
FROM _rcaeval_extract_keys AS k
LEFT JOIN raw_bundle AS b ON b.run_id = k.run_id AND b.case_id = k.case_id;
