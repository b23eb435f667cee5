-- The eval_runs row a resume checks against.
SELECT run_id, suite_id, suite_version, agent_spec, agent_hash, source, audit_root, status
FROM eval_runs
WHERE run_id = $run_id;
