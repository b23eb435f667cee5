-- metric: offline_novel_grounding
-- kind: rate
-- reads: offline_case_eval
-- numerator: novel cases with at least one material claim where every material claim
--   cites usable current-run evidence
-- denominator: every novel case
-- rows: one row per valid fixture with case_type = 'novel'
--   (queries/offline/case_eval.sql defines the per-case columns); invalid fixture
--   lines are not loaded and not counted
SELECT count(*) FILTER (WHERE grounded) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
WHERE case_type = 'novel'
