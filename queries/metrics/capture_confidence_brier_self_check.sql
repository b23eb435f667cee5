-- metric: capture_confidence_brier_self_check
-- kind: value
-- reads: release_confidence
-- rows: decides whether the ranker's self-check improves its calibration: the Brier score of
--   confidence_diagnostics.self_check.calibrated_probability, mean of (calibrated - outcome)^2
--   with outcome 1 when the named root-cause family is the expected one (labels or latest
--   review) and 0 otherwise, over the captures capture_confidence_brier counts that also carry
--   a calibrated probability (finite, in [0, 1]; a NaN is never averaged). Read beside
--   capture_confidence_brier on the same captures: lower means the self-check helped; none:
--   NULL, not measured (sample size 0)
SELECT avg(power(calibrated_probability - CASE WHEN correct THEN 1 ELSE 0 END, 2)) AS value,
       count(*) AS denominator
FROM release_confidence
WHERE correct IS NOT NULL AND isfinite(probability) AND isfinite(calibrated_probability)
