-- The trajectory and efficiency rows of one run's judged cases (eval_trajectory, migration
-- 0016), each with its per-tool calls in first-call order. Decides nothing: the judge's
-- queries/judge/trajectory.sql did. Parameter: $run_id.
SELECT t.*,
       coalesce((SELECT list({'tool': u.tool, 'channel': u.channel, 'calls': u.calls,
                              'failed_calls': u.failed_calls,
                              'repeated_calls': u.repeated_calls}
                             ORDER BY u.first_step, u.tool)
                 FROM eval_trajectory_tool AS u
                 WHERE u.run_id = t.run_id AND u.case_id = t.case_id), []) AS tools
FROM eval_trajectory AS t
WHERE t.run_id = $run_id
ORDER BY t.case_id;
