-- The check frame (JudgeFrames.checks): per (run, case) and bucket (in $buckets order) its
-- checks in their spec order.
SELECT * FROM j_check
ORDER BY run_id, case_id, list_position($buckets::VARCHAR[], bucket), ord, check_id;
