-- Cases the registry could not supply (not in the registry, or case.yaml/judge.yaml does not
-- load): replace whatever this (run, case) had with an `invalid` judgment whose reason names
-- the registry file and field, and record the case run when the runner has not.
-- Inputs: __rcaeval_unloadable (eval_judgment rows), __rcaeval_unloadable_runs.
DELETE FROM eval_fact WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __rcaeval_unloadable);
DELETE FROM eval_check WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __rcaeval_unloadable);
DELETE FROM eval_bucket WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __rcaeval_unloadable);
DELETE FROM eval_judgment WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __rcaeval_unloadable);
DELETE FROM eval_detector_hit WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __rcaeval_unloadable);
INSERT INTO eval_judgment BY NAME SELECT * FROM __rcaeval_unloadable;
INSERT INTO eval_case_runs (run_id, case_id, status, attempts, audit_path, error)
SELECT u.run_id, u.case_id, 'judged', 1, u.audit_path, u.error
FROM __rcaeval_unloadable_runs AS u
WHERE NOT EXISTS (SELECT 1 FROM eval_case_runs AS c
                  WHERE c.run_id = u.run_id AND c.case_id = u.case_id);
