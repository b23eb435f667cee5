-- Whether the store knows run $run_id: its eval_runs row plus its judgments (a run judged
-- from an audit dir may have judgments only). Greater than 0 when it exists.
SELECT (SELECT count(*) FROM eval_runs WHERE run_id = $run_id)
       + (SELECT count(*) FROM eval_judgment WHERE run_id = $run_id) AS n;
