-- Resume: a case that did not reach a final status goes back to 'pending'.
UPDATE eval_case_runs
SET status = 'pending', attempts = 0, workspace_id = NULL, audit_path = NULL,
    started_at = NULL, finished_at = NULL, duration_s = NULL, input_tokens = NULL,
    output_tokens = NULL, cache_read_tokens = NULL, cache_write_tokens = NULL,
    cost_usd = NULL, error = NULL
WHERE run_id = $run_id AND case_id = $case_id;
