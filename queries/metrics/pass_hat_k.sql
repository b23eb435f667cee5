-- metric: pass_hat_k
-- kind: rate
-- reads: eval_case_runs, eval_judgment
-- numerator: cases that passed in every one of the runs $run_ids (pass^k with k = the
--   number of repeats: the case is reliably solved)
-- denominator: every distinct case of the runs $run_ids
-- rows: one row per (run, case) in eval_case_runs with run_id in $run_ids and case_id not in
--   $excluded, grouped by case; errored or timed-out attempts count as not passing
-- params: $run_ids, $excluded
WITH per_case AS (
    SELECT c.case_id, bool_and(coalesce(j.verdict = 'pass', false)) AS all_pass
    FROM eval_case_runs AS c
    LEFT JOIN eval_judgment AS j ON j.run_id = c.run_id AND j.case_id = c.case_id
    WHERE list_contains($run_ids, c.run_id)
      AND NOT list_contains($excluded, c.case_id)
    GROUP BY c.case_id
)
SELECT count(*) FILTER (WHERE all_pass) AS numerator, count(*) AS denominator
FROM per_case
