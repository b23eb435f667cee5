-- metric: capture_confidence_brier
-- kind: value
-- reads: release_confidence
-- rows: decides how well the ranker's confidence predicts review outcomes: the Brier score,
--   mean of (probability - outcome)^2 with outcome 1 when the named root-cause family is the
--   expected one (labels or latest review) and 0 otherwise, over valid captures in the
--   release window whose response carries confidence_diagnostics.probability (finite, in
--   [0, 1]; a NaN is never averaged), names a family and has an expected family. 0 is
--   perfect, 0.25 is a constant 0.5; none: NULL, not measured (sample size 0)
SELECT avg(power(probability - CASE WHEN correct THEN 1 ELSE 0 END, 2)) AS value,
       count(*) AS denominator
FROM release_confidence
WHERE correct IS NOT NULL AND isfinite(probability)
