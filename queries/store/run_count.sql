-- How many runs the store holds (`rcaeval doctor`'s store line).
SELECT count(*) FROM eval_runs;
