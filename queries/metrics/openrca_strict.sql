-- metric: openrca_strict
-- kind: rate
-- reads: openrca_scores
-- numerator: rows whose OpenRCA score is exactly 1 (every criterion hit)
-- denominator: every scored row
-- rows: one row per OpenRCA query row scored by `rcaeval offline openrca` (score already
--   rounded to 2 places as OpenRCA does); OpenRCA's "strict accuracy"
SELECT count(*) FILTER (WHERE score = 1.0) AS numerator,
       count(*) AS denominator
FROM openrca_scores
