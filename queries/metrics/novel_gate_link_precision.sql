-- metric: novel_gate_link_precision
-- kind: rate
-- reads: offline_case_eval
-- numerator: evidence links (distinct evidence ids a material claim or the named root cause
--   cites, per case) that the reviewer labelled relevant
-- denominator: every such evidence link, summed over cases (micro-average)
-- rows: one row per valid fixture of the gate's capture file; the gate fails below 1.0
SELECT coalesce(sum(link_tp), 0) AS numerator,
       coalesce(sum(n_links), 0) AS denominator
FROM offline_case_eval
