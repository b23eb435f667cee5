-- One case of a new run, before any agent started on it.
INSERT INTO eval_case_runs (run_id, case_id, status, attempts)
VALUES ($run_id, $case_id, 'pending', 0);
