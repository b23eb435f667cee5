-- Bucket pass rates for charts and tables: per (run, case type, bucket) the cases judged, the
-- cases whose bucket status is 'pass', and their ratio. Coarser groupings sum cases/passed.
-- agent_name is eval_runs.agent_name, else the run id.
-- Parameters: $run_ids (VARCHAR[]).
SELECT b.run_id,
       coalesce(r.agent_name, b.run_id) AS agent_name,
       coalesce(j.case_type, '-') AS case_type,
       b.bucket,
       count(*)::BIGINT AS cases,
       count(*) FILTER (WHERE b.status = 'pass')::BIGINT AS passed,
       passed / cases AS pass_rate
FROM eval_bucket b
LEFT JOIN eval_judgment j USING (run_id, case_id)
LEFT JOIN eval_runs r ON r.run_id = b.run_id
WHERE list_contains($run_ids, b.run_id)
GROUP BY ALL
ORDER BY ALL
