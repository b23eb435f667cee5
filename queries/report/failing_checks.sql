-- Failing check rows of a run (passed is false or unknown), in report order: bucket order,
-- diagnosis hard checks before supporting ones, required before optional, then check id.
-- Parameters: $run_id, $bucket_order (VARCHAR[]).
SELECT case_id, bucket, check_id, kind, required, weight, reason,
       evidence_file, evidence_path, evidence_line, evidence_excerpt
FROM eval_check
WHERE run_id = $run_id AND NOT coalesce(passed, false)
ORDER BY case_id,
         coalesce(list_position($bucket_order, bucket), 1000), bucket,
         coalesce(list_position(['hard', 'supporting', 'check'], kind), 1000),
         coalesce(required, false) DESC,
         check_id
