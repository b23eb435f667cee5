-- rcaeval demo: verdict counts per (run, case_type) over the given runs.
SELECT j.run_id,
       coalesce(j.case_type, m.case_type, '?') AS case_type,
       count(*) FILTER (WHERE j.verdict = 'pass')    AS n_pass,
       count(*) FILTER (WHERE j.verdict = 'fail')    AS n_fail,
       count(*) FILTER (WHERE j.verdict = 'invalid') AS n_invalid,
       count(*)                                       AS n
FROM eval_judgment AS j
LEFT JOIN case_meta AS m ON m.run_id = j.run_id AND m.case_id = j.case_id
WHERE list_contains($runs::VARCHAR[], j.run_id)
GROUP BY ALL
ORDER BY ALL;
