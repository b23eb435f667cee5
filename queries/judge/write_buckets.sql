-- Copy this pass's scored buckets (j_bucket_scored) into eval_bucket; the caller has deleted
-- the (run, case) rows being replaced, inside the same transaction.
INSERT INTO eval_bucket (run_id, case_id, bucket, status, score, max_score, reason)
SELECT run_id, case_id, bucket, status, score, max_score, reason
FROM j_bucket_scored;
