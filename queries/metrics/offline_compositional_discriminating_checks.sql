-- metric: offline_compositional_discriminating_checks
-- kind: rate
-- reads: offline_case_eval
-- numerator: compositional cases with a read-only investigation step that discriminates
--   at least two of the response's hypothesis families
-- denominator: every compositional case
-- rows: one row per valid fixture with case_type = 'compositional'
--   (queries/offline/case_eval.sql defines the per-case columns); invalid fixture
--   lines are not loaded and not counted
SELECT count(*) FILTER (WHERE discriminating) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
WHERE case_type = 'compositional'
