-- What a sheet's overrides may name (docs/calibration.md, "Sheet format"): one row per key of
-- each judged case run of the runs in $run_ids: a bucket name, a check as `bucket.check_id`
-- and as its bare check id, and a detector as `detector.<id>`, with the level and item it
-- stands for. Decides which override keys `rcaeval label import` accepts; a bare check id
-- naming checks of two buckets is ambiguous and must be written with its bucket.
SELECT run_id, case_id, 'bucket' AS level, bucket AS key, bucket AS item
FROM eval_bucket WHERE list_contains($run_ids, run_id)
UNION ALL
SELECT run_id, case_id, 'check', bucket || '.' || check_id, bucket || '.' || check_id
FROM eval_check WHERE list_contains($run_ids, run_id)
UNION ALL
SELECT run_id, case_id, 'check', check_id, bucket || '.' || check_id
FROM eval_check WHERE list_contains($run_ids, run_id)
UNION ALL
SELECT run_id, case_id, 'detector', fact, substr(fact, length('detector.') + 1)
FROM eval_fact WHERE list_contains($run_ids, run_id) AND fact LIKE 'detector.%'
ORDER BY run_id, case_id, key;
