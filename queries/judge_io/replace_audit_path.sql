-- rcaeval judge --replace: the replaced case runs now cite the copy that was judged, so
-- reports and `rcaeval explain` point at the evidence the verdicts came from.
-- Input: __rcaeval_replaced (run_id, case_id, audit_path).
UPDATE eval_case_runs AS c
SET audit_path = p.audit_path
FROM __rcaeval_replaced AS p
WHERE c.run_id = p.run_id AND c.case_id = p.case_id;
