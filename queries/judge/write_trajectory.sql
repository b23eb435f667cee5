-- Copy this pass's trajectory rows (j_trajectory, j_trajectory_tool) into eval_trajectory and
-- eval_trajectory_tool; the caller has deleted the (run, case) rows being replaced, inside the
-- same transaction. Decides nothing.
INSERT INTO eval_trajectory BY NAME SELECT * FROM j_trajectory;
INSERT INTO eval_trajectory_tool BY NAME
SELECT run_id, case_id, tool, channel, calls, failed_calls, repeated_calls, first_step
FROM j_trajectory_tool;
