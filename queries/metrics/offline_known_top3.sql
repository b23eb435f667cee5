-- metric: offline_known_top3
-- kind: rate
-- reads: offline_case_eval
-- numerator: known cases whose expected family is among the first three ranked families
--   (root cause first, then hypotheses by rank, each family once)
-- denominator: every known case of the fixture set
-- rows: one row per valid fixture with case_type = 'known'
--   (queries/offline/case_eval.sql defines the per-case columns); invalid fixture
--   lines are not loaded and not counted
SELECT count(*) FILTER (WHERE top3_hit) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
WHERE case_type = 'known'
