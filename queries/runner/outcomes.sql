-- Status and verdict of some cases of a run (the progress bar's starting counts on resume).
SELECT c.status, j.verdict
FROM eval_case_runs AS c
LEFT JOIN eval_judgment AS j ON j.run_id = c.run_id AND j.case_id = c.case_id
WHERE c.run_id = $run_id AND list_contains($case_ids::VARCHAR[], c.case_id);
