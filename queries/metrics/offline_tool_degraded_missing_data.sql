-- metric: offline_tool_degraded_missing_data
-- kind: rate
-- reads: offline_case_eval
-- numerator: tool-degraded cases that report every missing source (a tool error or an
--   unusable artifact naming it)
-- denominator: every tool_degraded case
-- rows: one row per valid fixture with case_type = 'tool_degraded'
--   (queries/offline/case_eval.sql defines the per-case columns); invalid fixture
--   lines are not loaded and not counted
SELECT count(*) FILTER (WHERE missing_reported) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
WHERE case_type = 'tool_degraded'
