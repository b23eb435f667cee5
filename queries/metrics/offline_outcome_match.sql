-- metric: offline_outcome_match
-- kind: rate
-- reads: offline_case_eval
-- numerator: fixtures whose response outcome is one of the case's expected outcomes
-- denominator: every fixture of the set, all case types
-- rows: one row per valid fixture; invalid fixture lines are not loaded and not counted
SELECT count(*) FILTER (WHERE outcome_ok) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
