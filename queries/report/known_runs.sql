-- The first 20 runs of the store by id: the hint when a report names a run it does not know.
SELECT run_id FROM eval_runs ORDER BY run_id LIMIT 20;
