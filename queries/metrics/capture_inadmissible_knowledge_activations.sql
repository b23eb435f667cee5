-- metric: capture_inadmissible_knowledge_activations
-- kind: count
-- reads: release_activation
-- numerator: knowledge activations flagged admissible = false
-- denominator: every recorded knowledge activation (the sample size)
-- rows: activations recorded by valid captures in the release window, outage tests included,
--   whether or not the activation succeeded (an attempt to use knowledge that is not
--   admissible is the defect; a failure does not prove it was not used); no activation
--   recorded: not measured (sample size 0), the gate fails it
SELECT count(*) FILTER (WHERE NOT admissible) AS numerator,
       count(*) AS denominator
FROM release_activation
