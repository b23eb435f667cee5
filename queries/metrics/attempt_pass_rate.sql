-- metric: attempt_pass_rate
-- kind: rate
-- reads: eval_case_runs, eval_judgment
-- numerator: case runs (one per case and repeat) whose verdict is 'pass'
-- denominator: every case run of the runs $run_ids, whatever its status: a case that
--   errored, timed out without passing, or never finished counts as not passing
-- rows: one row per (run, case) in eval_case_runs with run_id in $run_ids and case_id not in
--   $excluded (the caller passes quarantined cases there); with one run per repeat this is
--   the suite pass rate over all attempts
-- params: $run_ids, $excluded
SELECT count(*) FILTER (WHERE j.verdict = 'pass') AS numerator,
       count(*) AS denominator
FROM eval_case_runs AS c
LEFT JOIN eval_judgment AS j ON j.run_id = c.run_id AND j.case_id = c.case_id
WHERE list_contains($run_ids, c.run_id)
  AND NOT list_contains($excluded, c.case_id)
