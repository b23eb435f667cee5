-- Per-case trajectory for charts and the explore notebook: one row per judged (run, case)
-- with its agent_name (eval_runs.agent_name, else the run id), verdict and the measures of
-- eval_trajectory (decided by queries/judge/trajectory.sql). Parameters: $run_ids (VARCHAR[]).
SELECT t.run_id,
       coalesce(r.agent_name, t.run_id) AS agent_name,
       t.case_id,
       coalesce(j.case_type, '-') AS case_type,
       j.verdict,
       t.steps, t.failed_calls, t.repeated_calls, t.tools_used, t.channels_queried,
       t.evidence_step, t.evidence_seconds, t.evidence_check,
       t.wall_seconds, t.total_tokens, t.cost_usd,
       t.efficiency, t.over_budget
FROM eval_trajectory AS t
LEFT JOIN eval_judgment AS j USING (run_id, case_id)
LEFT JOIN eval_runs AS r USING (run_id)
WHERE list_contains($run_ids, t.run_id)
ORDER BY t.run_id, t.case_id
