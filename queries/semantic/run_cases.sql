-- The case runs of one run that have a semantic shadow (the run page's drill-down,
-- docs/semantic.md): one row per eval_semantic row of $run_id, by case id. A case absent here
-- was judged without the shadow and its drill-down shows the deterministic judgment only.
SELECT case_id
FROM eval_semantic
WHERE run_id = $run_id
ORDER BY case_id;
