-- Verdict counts for charts and tables: cases per (run, case type, verdict), aggregated here so
-- charts draw counts, never raw judgment rows. A missing case type is '-'.
-- Parameters: $run_ids (VARCHAR[]).
SELECT j.run_id,
       coalesce(j.case_type, '-') AS case_type,
       j.verdict,
       count(*)::BIGINT AS cases
FROM eval_judgment j
WHERE list_contains($run_ids, j.run_id)
GROUP BY ALL
ORDER BY ALL
