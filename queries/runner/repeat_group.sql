-- The runs of repeat group $group_id in repeat order, with each run's status (NULL when the
-- run was planned but never started): decides what `--resume GROUP` re-runs.
SELECT g.repeat_index, g.run_id, g.repeats, r.status
FROM eval_repeat_runs AS g
LEFT JOIN eval_runs AS r ON r.run_id = g.run_id
WHERE g.group_id = $group_id
ORDER BY g.repeat_index
