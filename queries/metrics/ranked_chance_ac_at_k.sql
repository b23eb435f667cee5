-- metric: ranked_chance_ac_at_k
-- kind: value
-- reads: ranked_cases
-- rows: one row per case scored by `rcaeval offline ranked`; the value is the AC@$k of a
--   uniformly random ranking of each case's candidates: the mean over cases of
--   min(k, candidates) / candidates (the truth assumed to be one of the candidates); NULL
--   with no case
-- params: $k
SELECT avg(least($k, candidates) / candidates) AS value,
       count(*) AS denominator
FROM ranked_cases
