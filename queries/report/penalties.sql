-- Diagnosis penalties of a run: each failed hard or supporting diagnosis check with its weight
-- and its share of the total weight of its kind (hard / supporting) for that case, i.e. the
-- fraction of that scoring component the failure cost. Parameter: $run_id.
WITH diag AS (
    SELECT case_id, check_id, kind, required, coalesce(weight, 1.0) AS weight, passed, reason,
           sum(coalesce(weight, 1.0)) OVER (PARTITION BY case_id, kind) AS kind_weight
    FROM eval_check
    WHERE run_id = $run_id AND bucket = 'diagnosis' AND kind IN ('hard', 'supporting')
)
SELECT case_id, kind, check_id, required, weight, kind_weight,
       CASE WHEN kind_weight > 0 THEN weight / kind_weight END AS share,
       reason
FROM diag
WHERE NOT coalesce(passed, false)
ORDER BY case_id, CASE kind WHEN 'hard' THEN 0 ELSE 1 END, check_id
