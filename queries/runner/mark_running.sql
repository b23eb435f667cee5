-- A worker picked the case up: the agent is about to start.
UPDATE eval_case_runs
SET status = 'running', started_at = CAST($started_at AS TIMESTAMPTZ)
WHERE run_id = $run_id AND case_id = $case_id;
