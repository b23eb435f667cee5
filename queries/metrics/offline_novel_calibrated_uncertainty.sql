-- metric: offline_novel_calibrated_uncertainty
-- kind: rate
-- reads: offline_case_eval
-- numerator: novel cases whose outcome is an expected one and whose confidence is high
--   only when 'diagnosed' is expected
-- denominator: every novel case
-- rows: one row per valid fixture with case_type = 'novel'
--   (queries/offline/case_eval.sql defines the per-case columns); invalid fixture
--   lines are not loaded and not counted
SELECT count(*) FILTER (WHERE calibrated) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
WHERE case_type = 'novel'
