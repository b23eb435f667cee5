-- The judging pass's per-tool call counts (JudgeFrames.trajectory_tools), in first-call order.
SELECT * FROM j_trajectory_tool ORDER BY run_id, case_id, first_step, tool;
