-- Two runs on the same cases, paired: one row per case judged in both $run_a and $run_b, with
-- each run's verdict and score, the score difference (b - a) and whether each passed -- the
-- input of paired score differences and of McNemar's test (rcaeval.stats.mcnemar_paired).
-- Cases judged in only one of the runs are left out. Parameters: $run_a, $run_b.
SELECT a.case_id,
       coalesce(a.case_type, b.case_type, '-') AS case_type,
       a.verdict                 AS verdict_a,
       b.verdict                 AS verdict_b,
       a.score                   AS score_a,
       b.score                   AS score_b,
       b.score - a.score         AS score_delta,
       a.verdict = 'pass'        AS pass_a,
       b.verdict = 'pass'        AS pass_b
FROM eval_judgment a
JOIN eval_judgment b ON b.case_id = a.case_id AND b.run_id = $run_b
WHERE a.run_id = $run_a
ORDER BY a.case_id
