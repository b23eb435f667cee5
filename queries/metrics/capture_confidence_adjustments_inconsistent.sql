-- metric: capture_confidence_adjustments_inconsistent
-- kind: count
-- reads: release_confidence_breakdown
-- numerator: captures whose confidence breakdown does not add up: final_score differs from
--   base_score plus the sum of its additive adjustments' deltas by more than 1e-6 (the
--   ranker's account of its confidence is not the score it reports)
-- rows: valid captures in the release window whose response carries confidence_diagnostics
--   (the sample size); none: not measured (sample size 0)
SELECT count(*) FILTER (WHERE abs(final_score - (base_score + delta_sum)) > 1e-6)
         AS numerator,
       count(*) AS denominator
FROM release_confidence_breakdown
WHERE isfinite(base_score) AND isfinite(final_score) AND isfinite(delta_sum)
