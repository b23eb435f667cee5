-- metric: openrca_mean
-- kind: value
-- reads: openrca_scores
-- rows: one row per OpenRCA query row scored by `rcaeval offline openrca`; the value is the
--   mean of the per-row scores as rounded to 2 places (OpenRCA's published mean); NULL when
--   no row was scored
SELECT avg(score) AS value,
       count(*) AS denominator
FROM openrca_scores
