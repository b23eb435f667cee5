-- metric: openrca_mean
-- kind: value
-- reads: openrca_scores
-- rows: one row per OpenRCA query row scored by `rcaeval offline openrca`; the value is the
--   mean of the per-row scores as rounded to 2 places (OpenRCA's published mean); NULL when
--   no row was scored; a non-finite score (never produced by the scorer) is left out of the
--   mean and of the denominator, as DuckDB's avg would return NaN
SELECT avg(score) FILTER (WHERE isfinite(score)) AS value,
       count(*) FILTER (WHERE isfinite(score)) AS denominator
FROM openrca_scores
