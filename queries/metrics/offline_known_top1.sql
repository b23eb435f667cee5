-- metric: offline_known_top1
-- kind: rate
-- reads: offline_case_eval
-- numerator: known cases whose root cause names the expected family (case-insensitive); an
--   answer naming no family is a miss even when its top hypothesis is right (the one
--   definition of Top-1, as capture_known_top1)
-- denominator: every known case of the fixture set
-- rows: one row per valid fixture with case_type = 'known'
--   (queries/offline/case_eval.sql defines the per-case columns); invalid fixture
--   lines are not loaded and not counted; no known case: NULL (sample size 0)
SELECT count(*) FILTER (WHERE top1_hit) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
WHERE case_type = 'known'
