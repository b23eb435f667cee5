-- metric: capture_false_novel_rate
-- kind: rate
-- numerator: those captures whose final response says novel = true
-- denominator: captures whose case type is not 'novel' (known, compositional, tool_degraded):
--   incidents of a known family, where a novel result is false
-- reads: release_capture
-- rows: valid captures in the release window with a case type (from labels or the latest
--   review); unlabelled captures are not counted
SELECT count(*) FILTER (WHERE novel) AS numerator,
       count(*) AS denominator
FROM release_capture
WHERE case_type IN ('known', 'compositional', 'tool_degraded')
