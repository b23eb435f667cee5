-- Verdict counts for charts and tables: cases per (run, case type, verdict), aggregated here so
-- charts draw counts, never raw judgment rows. A missing case type is '-'; agent_name is
-- eval_runs.agent_name, else the run id (runs judged from an audit dir have no name).
-- Parameters: $run_ids (VARCHAR[]).
SELECT j.run_id,
       coalesce(r.agent_name, j.run_id) AS agent_name,
       coalesce(j.case_type, '-') AS case_type,
       j.verdict,
       count(*)::BIGINT AS cases
FROM eval_judgment j
LEFT JOIN eval_runs r USING (run_id)
WHERE list_contains($run_ids, j.run_id)
GROUP BY ALL
ORDER BY ALL
