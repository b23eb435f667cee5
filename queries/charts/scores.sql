-- Per-case scores for charts: one row per (run, case) with its case type, verdict and score
-- (after banding). Parameters: $run_ids (VARCHAR[]).
SELECT j.run_id,
       j.case_id,
       coalesce(j.case_type, '-') AS case_type,
       j.verdict,
       j.score
FROM eval_judgment j
WHERE list_contains($run_ids, j.run_id)
ORDER BY j.run_id, j.case_id
