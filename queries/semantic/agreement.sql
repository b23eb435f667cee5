-- Agreement between the deterministic detectors and the semantic shadow (docs/semantic.md):
-- one row per diagnosis check id, plus a total row (check_id NULL), over the shadow's
-- per-check rows (eval_semantic_check) of one run ($run_id) or of every run ($run_id NULL).
-- Decides the confusion counts (deterministic verdict x semantic majority); a tie has no
-- semantic verdict and is counted apart (`ties`), outside n. Cohen's kappa is computed from
-- these counts by rcaeval.stats.cohen_kappa.
SELECT check_id,
       CASE WHEN grouping(check_id) = 0 THEN any_value(kind) END AS kind,
       count(*) FILTER (WHERE sem_passed IS NOT NULL) AS n,
       count(*) FILTER (WHERE det_passed AND sem_passed) AS both_pass,
       count(*) FILTER (WHERE det_passed AND NOT sem_passed) AS det_pass_sem_fail,
       count(*) FILTER (WHERE NOT det_passed AND sem_passed) AS det_fail_sem_pass,
       count(*) FILTER (WHERE NOT det_passed AND NOT sem_passed) AS both_fail,
       count(*) FILTER (WHERE sem_passed IS NULL) AS ties,
       count(DISTINCT run_id || chr(0) || case_id) AS case_runs
FROM eval_semantic_check
WHERE $run_id IS NULL OR run_id = $run_id
GROUP BY GROUPING SETS ((check_id), ())
ORDER BY grouping(check_id), check_id;
