-- metric: offline_novel_no_forced_family
-- kind: rate
-- reads: offline_case_eval
-- numerator: novel cases whose root cause does not assert a familiar family (outcome
--   diagnosed or confidence high, where diagnosed is not expected); a provisional or
--   unresolved answer counts
-- denominator: every novel case
-- rows: one row per valid fixture with case_type = 'novel'
--   (queries/offline/case_eval.sql defines the per-case columns); invalid fixture
--   lines are not loaded and not counted
SELECT count(*) FILTER (WHERE NOT forced_familiar) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
WHERE case_type = 'novel'
