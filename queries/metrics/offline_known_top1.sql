-- metric: offline_known_top1
-- kind: rate
-- reads: offline_case_eval
-- numerator: known cases whose first ranked family (the root cause's family, else the
--   top hypothesis) is the expected family
-- denominator: every known case of the fixture set
-- rows: one row per valid fixture with case_type = 'known'
--   (queries/offline/case_eval.sql defines the per-case columns); invalid fixture
--   lines are not loaded and not counted
SELECT count(*) FILTER (WHERE top1_hit) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
WHERE case_type = 'known'
