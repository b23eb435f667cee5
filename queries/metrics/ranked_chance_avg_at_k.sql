-- metric: ranked_chance_avg_at_k
-- kind: value
-- reads: ranked_cases
-- rows: one row per case scored by `rcaeval offline ranked`; the value is the Avg@$k of a
--   uniformly random ranking: the mean over cases of (1/k) * sum over j = 1..k of
--   min(j, candidates) / candidates; NULL with no case
-- params: $k
SELECT avg(list_sum(list_transform(range(1, $k + 1),
                                   lambda j: least(j, candidates) / candidates)) / $k) AS value,
       count(*) AS denominator
FROM ranked_cases
