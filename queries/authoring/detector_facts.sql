-- `rcaeval case try` / detector examples: every detector fact of the judged answers (one row
-- per run, case, detector): whether it fired and why (the judge's own detail and evidence).
SELECT run_id, case_id, substr(fact, length('detector.') + 1) AS detector_id, value, detail,
       evidence_file, evidence_line, evidence_excerpt
FROM eval_fact
WHERE fact LIKE 'detector.%'
ORDER BY run_id, case_id, detector_id;
