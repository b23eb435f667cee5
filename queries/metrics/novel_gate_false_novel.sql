-- metric: novel_gate_false_novel
-- kind: count
-- reads: offline_case_eval
-- numerator: captured responses flagged novel (response.novel) where the case expects no
--   novel result (expected_novel false; default: the case type is not 'novel')
-- rows: one row per valid fixture of the gate's capture file; the gate fails when > 0
SELECT count(*) FILTER (WHERE false_novel) AS numerator
FROM offline_case_eval
