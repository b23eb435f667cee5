-- Harness batch: how many responses ended in each status, and their scores.
-- Input: harness_results (rcaeval.harness.check_batch(...).results).
SELECT
    status,
    count(*)                                   AS responses,
    round(count(*) / sum(count(*)) OVER (), 4) AS share,
    round(avg(score), 2)                       AS mean_score,
    round(avg(initial_score), 2)               AS mean_initial_score,
    round(avg(n_repairs), 2)                   AS mean_repairs,
    count(*) FILTER (WHERE family_in IS NOT NULL AND family_out IS NULL) AS families_withdrawn
FROM harness_results
GROUP BY status
ORDER BY CASE status
    WHEN 'passed' THEN 1 WHEN 'repaired' THEN 2 WHEN 'degraded' THEN 3
    WHEN 'insufficient_evidence' THEN 4 WHEN 'disabled' THEN 5 ELSE 6 END;
