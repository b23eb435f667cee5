-- Cases the registry could not supply (not in the registry, or case.yaml/judge.yaml does not
-- load): record the case run when the runner has not. Their `invalid` judgment itself is
-- written as every judgment is (judge/delete_scope.sql, judge/write_judgments.sql: the one
-- writer of eval_judgment). Input: __rcaeval_unloadable_runs. Decides nothing.
INSERT INTO eval_case_runs (run_id, case_id, status, attempts, audit_path, error)
SELECT u.run_id, u.case_id, 'judged', 1, u.audit_path, u.error
FROM __rcaeval_unloadable_runs AS u
WHERE NOT EXISTS (SELECT 1 FROM eval_case_runs AS c
                  WHERE c.run_id = u.run_id AND c.case_id = u.case_id);
