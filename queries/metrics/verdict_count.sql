-- metric: verdict_count
-- kind: count
-- reads: eval_judgment
-- numerator: judgments of the run whose verdict is $verdict (pass, fail or invalid)
-- rows: one row per (run, case) in eval_judgment for run $run_id; cases that errored or
--   timed out before judging have no judgment and are not counted here
-- params: $run_id, $verdict
SELECT count(*) AS numerator
FROM eval_judgment
WHERE run_id = $run_id AND verdict = $verdict
