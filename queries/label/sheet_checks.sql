-- Labelling sheet, the judge's checks (docs/calibration.md, "Export"): one row per check of
-- each case run of run $run_id, keyed `bucket.check_id` as a labeller writes it in
-- `overrides`, with its pass/fail and kind, in bucket order ($buckets) then check id. Decides
-- which checks a sheet lists; a blind sheet lists the keys without their result.
SELECT c.case_id, c.bucket || '.' || c.check_id AS key, c.kind,
       CASE WHEN c.passed THEN 'pass' ELSE 'fail' END AS result
FROM eval_check c
WHERE c.run_id = $run_id
ORDER BY c.case_id, list_position($buckets, c.bucket), c.check_id;
