-- Where the store says each case run of the given runs lives (rcaeval judge refuses to judge
-- a different copy under the same ids without --replace): one row per case run that has an
-- eval_case_runs row, plus one row per run with case_id NULL for the run's audit root.
-- Params: $run_ids (VARCHAR[]).
SELECT c.run_id, c.case_id, c.audit_path, r.audit_root
FROM eval_case_runs AS c
LEFT JOIN eval_runs AS r ON r.run_id = c.run_id
WHERE list_contains($run_ids, c.run_id)
UNION ALL
SELECT r.run_id, NULL AS case_id, NULL AS audit_path, r.audit_root
FROM eval_runs AS r
WHERE list_contains($run_ids, r.run_id)
ORDER BY run_id, case_id NULLS FIRST;
