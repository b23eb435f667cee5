-- metric: capture_confidence_failed_gate_high
-- kind: count
-- reads: release_confidence_breakdown
-- numerator: captures whose root cause is labelled confidence 'high' although the ranker's
--   own confidence breakdown lists a gate with passed = false (the ranker reports a
--   confidence its own gates did not grant)
-- rows: valid captures in the release window whose response carries confidence_diagnostics
--   listing at least one gate (the sample size); none: not measured (sample size 0)
SELECT count(*) FILTER (WHERE failed_gates > 0 AND rc_confidence = 'high') AS numerator,
       count(*) AS denominator
FROM release_confidence_breakdown
WHERE gates > 0
