-- Resume: the run is running again; started_at keeps the first start.
UPDATE eval_runs SET status = 'running', finished_at = NULL WHERE run_id = $run_id;
