-- metric: capture_abstention_rate
-- kind: rate
-- reads: release_capture
-- numerator: those captures whose final response abstains: it names no root-cause family, or
--   its outcome is 'provisional' or 'insufficient_evidence' with a confidence below 'high'
-- denominator: captures labelled expected_outcome = 'abstain' (the evidence does not support
--   any cause; the right answer is to say so)
-- rows: valid captures in the release window with that label; others are not counted;
--   none: NULL, not measured (sample size 0)
SELECT count(*) FILTER (
         WHERE rc_family IS NULL
            OR (outcome IN ('provisional', 'insufficient_evidence') AND rc_confidence <> 'high'))
         AS numerator,
       count(*) AS denominator
FROM release_capture
WHERE expected_outcome = 'abstain'
