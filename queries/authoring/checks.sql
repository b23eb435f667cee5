-- `rcaeval case try`: the check rows of the judged answers (every bucket), in bucket order.
SELECT run_id, case_id, bucket, check_id, kind, required, weight, passed, reason,
       evidence_file, evidence_line, evidence_excerpt
FROM eval_check
ORDER BY run_id, case_id, list_position($buckets, bucket), kind, check_id;
