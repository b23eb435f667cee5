-- metric: offline_compositional_causal_order
-- kind: rate
-- reads: offline_case_eval
-- numerator: compositional cases whose root cause is the root of the causal chain (not
--   a downstream effect) and whose material claims mention chain families in
--   causal order
-- denominator: every compositional case
-- rows: one row per valid fixture with case_type = 'compositional'
--   (queries/offline/case_eval.sql defines the per-case columns); invalid fixture
--   lines are not loaded and not counted
SELECT count(*) FILTER (WHERE causal_order) AS numerator,
       count(*) AS denominator
FROM offline_case_eval
WHERE case_type = 'compositional'
