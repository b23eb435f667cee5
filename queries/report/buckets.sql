-- Bucket rows of a run in report order. Parameters: $run_id, $bucket_order (VARCHAR[]).
SELECT case_id, bucket, status, score, max_score, reason
FROM eval_bucket
WHERE run_id = $run_id
ORDER BY case_id, coalesce(list_position($bucket_order, bucket), 1000), bucket
