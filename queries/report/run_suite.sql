-- The suite a run was started for (no row, or NULL, for a run judged from an audit dir):
-- which registry baseline the notebook compares it with.
SELECT suite_id
FROM eval_runs
WHERE run_id = $run_id;
