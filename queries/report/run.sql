-- One run's record (eval_runs). Parameter: $run_id.
SELECT run_id, suite_id, suite_version, agent_spec, agent_hash, source, audit_root, status,
       started_at, finished_at, judge_version, notes, agent_name, sandbox
FROM eval_runs
WHERE run_id = $run_id
