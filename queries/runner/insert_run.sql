-- A new runner run (rcaeval.runner.run_suite). One row per run; status starts 'running'.
INSERT INTO eval_runs (run_id, suite_id, suite_version, agent_spec, agent_hash, source,
                       audit_root, status, started_at, finished_at, judge_version, notes,
                       agent_name, sandbox)
VALUES ($run_id, $suite_id, $suite_version, $agent_spec, $agent_hash, 'runner',
        $audit_root, 'running', now(), NULL, $judge_version, $notes, $agent_name, $sandbox);
