-- metric: openrca_partial
-- kind: rate
-- reads: openrca_scores
-- numerator: rows whose OpenRCA score is strictly between 0 and 1 (some criteria hit)
-- denominator: every scored row
-- rows: one row per OpenRCA query row scored by `rcaeval offline openrca`; rows scoring 1
--   count as strict, not partial
SELECT count(*) FILTER (WHERE score > 0 AND score < 1.0) AS numerator,
       count(*) AS denominator
FROM openrca_scores
