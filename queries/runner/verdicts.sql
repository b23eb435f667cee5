-- The verdict of every judged case of a run (the outcome of each case the runner just
-- persisted: pass / fail / invalid; a case absent here has no judgment).
SELECT case_id, verdict
FROM eval_judgment
WHERE run_id = $run_id;
