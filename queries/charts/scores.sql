-- Per-case scores for charts: one row per (run, case) with its case type, verdict and score
-- (after banding) and agent_name (eval_runs.agent_name, else the run id).
-- Parameters: $run_ids (VARCHAR[]).
SELECT j.run_id,
       coalesce(r.agent_name, j.run_id) AS agent_name,
       j.case_id,
       coalesce(j.case_type, '-') AS case_type,
       j.verdict,
       j.score
FROM eval_judgment j
LEFT JOIN eval_runs r USING (run_id)
WHERE list_contains($run_ids, j.run_id)
ORDER BY j.run_id, j.case_id
