-- Re-judge from the store (rcaeval judge --from-store, rcaeval.judge.rejudge_store): which
-- case runs to judge again. Every case run extraction left in raw_bundle (optionally of one
-- run), with the case dir its judgment.json goes back to when no --out is given. Reads
-- raw_bundle only (one row per case run): no audit file and no other raw row is touched.
-- Param: $run_id (NULL: every run).
SELECT run_id, case_id, case_dir
FROM raw_bundle
WHERE $run_id IS NULL OR run_id = $run_id
ORDER BY run_id, case_id;
