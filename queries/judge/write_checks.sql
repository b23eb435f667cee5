-- Copy this pass's check rows (j_check) into eval_check; the caller has deleted the
-- (run, case) rows being replaced, inside the same transaction.
INSERT INTO eval_check (run_id, case_id, bucket, check_id, kind, required, weight, passed,
                        reason, evidence_file, evidence_path, evidence_line, evidence_excerpt)
SELECT run_id, case_id, bucket, check_id, kind, required, weight, passed, reason,
       evidence_file, evidence_path, evidence_line, evidence_excerpt
FROM j_check
