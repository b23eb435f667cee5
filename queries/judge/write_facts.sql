-- Copy this pass's facts (j_fact) into eval_fact; the caller has deleted the (run, case)
-- rows being replaced, inside the same transaction.
INSERT INTO eval_fact
SELECT run_id, case_id, fact, value, detail, evidence_file, evidence_path, evidence_line,
       evidence_excerpt
FROM j_fact;
