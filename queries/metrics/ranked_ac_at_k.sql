-- metric: ranked_ac_at_k
-- kind: rate
-- reads: ranked_cases
-- numerator: cases whose true root cause is among the first $k candidates of the system's
--   ranked list (AC@k)
-- denominator: every case of the truth file
-- rows: one row per case scored by `rcaeval offline ranked`; a case whose list does not hold
--   the truth (truth_rank NULL), including an empty list, is a miss at every k
-- params: $k
SELECT count(*) FILTER (WHERE truth_rank <= $k) AS numerator,
       count(*) AS denominator
FROM ranked_cases
