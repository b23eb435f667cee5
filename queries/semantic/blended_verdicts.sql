-- The second pass's verdict of each case run of $run_id the semantic shadow judged again
-- (eval_judgment_blended; docs/semantic.md): the run page's `blended_verdict` column. Case runs
-- without a second pass (diagnosis mode deterministic_only, or a packet that is not ok) have
-- no row: their deterministic verdict stands.
SELECT case_id, verdict AS blended_verdict
FROM eval_judgment_blended
WHERE run_id = $run_id
ORDER BY case_id;
