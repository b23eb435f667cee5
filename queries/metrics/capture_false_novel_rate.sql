-- metric: capture_false_novel_rate
-- kind: rate
-- numerator: those captures whose final response says novel = true
-- denominator: captures whose case type is not 'novel' (known, compositional, tool_degraded):
--   incidents of a known family, where a novel result is false
-- reads: release_capture
-- rows: valid captures in the release window with a case type (from labels or the latest
--   review); unlabelled and novel captures are not counted. A false-positive rate over every
--   non-novel case, not a share of the novel flags: it stays defined when nothing is
--   flagged; no non-novel case: NULL, not measured (sample size 0)
SELECT count(*) FILTER (WHERE novel) AS numerator,
       count(*) AS denominator
FROM release_capture
WHERE case_type IN ('known', 'compositional', 'tool_degraded')
