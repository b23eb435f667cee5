-- eval_runs: a new run's row; the one statement that writes one (tests/judge/test_stages.py).
--   source 'runner' (rcaeval.runner, a run it starts): status 'running', started now, with
--                   its suite, agent, sandbox and notes;
--   source 'judge'  (rcaeval.judge.judge_audit, audits judged from a dir): 'completed', no
--                   start time, only the audit root and the judge version.
-- A run the store already has keeps its row: the runner refuses an existing run id before it
-- inserts, and judging a runner's audits leaves the runner's own row alone.
INSERT INTO eval_runs (run_id, suite_id, suite_version, agent_spec, agent_hash, source,
                       audit_root, status, started_at, finished_at, judge_version, notes,
                       agent_name, sandbox)
SELECT $run_id, $suite_id, $suite_version, $agent_spec, $agent_hash, $source, $audit_root,
       CASE WHEN $source = 'runner' THEN 'running' ELSE 'completed' END,
       CASE WHEN $source = 'runner' THEN now() END, NULL, $judge_version, $notes,
       $agent_name, $sandbox
WHERE NOT EXISTS (SELECT 1 FROM eval_runs WHERE run_id = $run_id);
