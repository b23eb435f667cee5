-- metric: pass_rate
-- kind: rate
-- reads: eval_judgment
-- numerator: judgments of the run whose verdict is 'pass'
-- denominator: every judgment of the run (pass, fail and invalid alike)
-- rows: one row per (run, case) in eval_judgment for run $run_id; cases that errored or
--   timed out before judging have no judgment and are not counted here
-- params: $run_id
SELECT count(*) FILTER (WHERE verdict = 'pass') AS numerator,
       count(*) AS denominator
FROM eval_judgment
WHERE run_id = $run_id
