-- metric: novel_gate_incorrect_abstention
-- kind: count
-- reads: offline_case_eval
-- numerator: responses that abstain (outcome insufficient_evidence) where abstention is not
--   an expected outcome, plus responses that do not abstain where it is the only one
-- rows: one row per valid fixture of the gate's capture file; the gate fails when > 0
SELECT count(*) FILTER (WHERE incorrect_abstention) AS numerator
FROM offline_case_eval
