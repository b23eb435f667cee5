-- metric: capture_inadmissible_knowledge_activations
-- kind: count
-- reads: release_activation
-- numerator: knowledge activations flagged admissible = false
-- denominator: every recorded knowledge activation (the sample size)
-- rows: activations recorded by valid captures in the release window, outage tests included,
--   whether or not the activation succeeded
SELECT count(*) FILTER (WHERE NOT admissible) AS numerator,
       count(*) AS denominator
FROM release_activation
