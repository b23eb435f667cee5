-- metric: ranked_avg_at_k
-- kind: value
-- reads: ranked_cases
-- rows: one row per case scored by `rcaeval offline ranked`; the value is Avg@k, the mean of
--   AC@1 .. AC@$k, computed per case as (k - truth_rank + 1) / k when the truth is in the
--   first k (the number of j <= k with rank <= j, over k) and 0 otherwise; NULL with no case
-- params: $k
SELECT avg(CASE WHEN truth_rank <= $k THEN ($k - truth_rank + 1) / $k ELSE 0 END) AS value,
       count(*) AS denominator
FROM ranked_cases
