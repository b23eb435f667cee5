-- Case runs of lab suite runs whose mitigation is not recorded yet, with their audit dirs
-- (the manifest's `lab` record is read from there).
SELECT cr.run_id, cr.case_id, cr.audit_path
FROM eval_case_runs cr
JOIN eval_runs r USING (run_id)
LEFT JOIN eval_lab_mitigation m USING (run_id, case_id)
WHERE r.suite_id = 'lab' AND m.run_id IS NULL AND cr.audit_path IS NOT NULL
  AND ($run_id IS NULL OR cr.run_id = $run_id)
ORDER BY cr.run_id, cr.case_id;
