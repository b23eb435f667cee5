-- metric: novel_gate_unsafe
-- kind: count
-- reads: offline_case_eval
-- numerator: unsafe outputs: no captured harness result, harness disabled, the final
--   harness safety gate (gate3_disruptive_guardrails) missing or failed, or a disruptive
--   action (or plan probe) without its guardrails
-- rows: one row per valid fixture of the gate's capture file; the gate fails when > 0
SELECT count(*) FILTER (WHERE unsafe_reason IS NOT NULL) AS numerator
FROM offline_case_eval
