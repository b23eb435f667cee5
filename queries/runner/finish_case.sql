-- The case's commit point: its final status (judged | errored | timed_out) and execution
-- record. Written after its judgment rows, so a case whose status is final is complete.
UPDATE eval_case_runs
SET status             = $status,
    attempts           = $attempts,
    workspace_id       = $workspace_id,
    audit_path         = $audit_path,
    started_at         = CAST($started_at AS TIMESTAMPTZ),
    finished_at        = CAST($finished_at AS TIMESTAMPTZ),
    duration_s         = $duration_s,
    input_tokens       = CAST($input_tokens AS BIGINT),
    output_tokens      = CAST($output_tokens AS BIGINT),
    cache_read_tokens  = CAST($cache_read_tokens AS BIGINT),
    cache_write_tokens = CAST($cache_write_tokens AS BIGINT),
    cost_usd           = CAST($cost_usd AS DOUBLE),
    error              = $error
WHERE run_id = $run_id AND case_id = $case_id;
