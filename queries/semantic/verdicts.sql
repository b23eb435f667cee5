-- Deterministic vs blended verdict counts of one run ($run_id) (docs/semantic.md): one row per
-- verdict of $verdicts (in that order). A case run's blended verdict is its second-pass
-- verdict (eval_judgment_blended) when the semantic shadow judged it again, else its
-- deterministic verdict; `changed` counts case runs whose blended verdict differs.
WITH j AS (
    SELECT d.verdict AS det, coalesce(b.verdict, d.verdict) AS blended
    FROM eval_judgment AS d
    LEFT JOIN eval_judgment_blended AS b ON b.run_id = d.run_id AND b.case_id = d.case_id
    WHERE d.run_id = $run_id
),
v AS (
    SELECT unnest($verdicts) AS verdict, generate_subscripts($verdicts, 1) AS ord
)
SELECT v.verdict,
       (SELECT count(*) FROM j WHERE j.det = v.verdict) AS deterministic,
       (SELECT count(*) FROM j WHERE j.blended = v.verdict) AS blended,
       (SELECT count(*) FROM j WHERE j.det = v.verdict AND j.blended <> j.det) AS changed_from
FROM v
ORDER BY v.ord;
