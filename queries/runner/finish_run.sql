-- The run ends: completed, or interrupted (Ctrl-C / SIGTERM; resume with --resume).
UPDATE eval_runs SET status = $status, finished_at = now() WHERE run_id = $run_id;
