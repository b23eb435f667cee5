-- The bucket frame (JudgeFrames.buckets): per (run, case) its buckets in evaluation order
-- ($buckets: rcaeval._vocab.BUCKETS).
SELECT * FROM j_bucket_scored
ORDER BY run_id, case_id, list_position($buckets::VARCHAR[], bucket);
