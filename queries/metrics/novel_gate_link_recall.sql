-- metric: novel_gate_link_recall
-- kind: rate
-- reads: offline_case_eval
-- numerator: reviewer-labelled relevant evidence ids that a material claim or the named
--   root cause of the same case cites
-- denominator: every reviewer-labelled relevant evidence id, summed over cases
--   (micro-average)
-- rows: one row per valid fixture of the gate's capture file; the gate fails below 1.0
SELECT coalesce(sum(link_tp), 0) AS numerator,
       coalesce(sum(n_relevant), 0) AS denominator
FROM offline_case_eval
