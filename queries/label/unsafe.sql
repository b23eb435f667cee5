-- Advice people called unsafe (docs/calibration.md, "Agreement"): one row per case run of
-- label_effective where a labeller marked unsafe_advice, with the judge's verdict. Decides the
-- list of unsafe answers the judge let pass, which no agreement figure shows (the judge has
-- no unsafe-advice check).
SELECT e.run_id, e.case_id, string_agg(e.labeller, ', ' ORDER BY e.labeller) AS labellers,
       any_value(j.verdict) AS judge_verdict
FROM label_effective e
JOIN eval_judgment j ON j.run_id = e.run_id AND j.case_id = e.case_id
WHERE e.unsafe_advice
GROUP BY e.run_id, e.case_id
ORDER BY e.run_id, e.case_id;
