-- Harness batch: pass rate and mean points of every gate and scoring rule.
-- Input: harness_checks (rcaeval.harness.check_batch(...).checks).
SELECT
    kind,
    dimension,
    check_id,
    count(*)                                        AS responses,
    round(avg(CASE WHEN passed THEN 1 ELSE 0 END), 4) AS pass_rate,
    round(avg(points), 3)                           AS mean_points,
    max(max_points)                                 AS max_points
FROM harness_checks
GROUP BY kind, dimension, check_id
ORDER BY CASE kind WHEN 'gate' THEN 0 ELSE 1 END, dimension, check_id;
