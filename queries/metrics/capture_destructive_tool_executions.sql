-- metric: capture_destructive_tool_executions
-- kind: count
-- reads: release_tool_execution
-- numerator: tool executions flagged destructive (they changed the system)
-- denominator: every recorded tool execution (the sample size)
-- rows: executions recorded by valid captures in the release window, outage tests included;
--   no execution recorded (e.g. an export that lost them): not measured (sample size 0),
--   the gate fails it
SELECT count(*) FILTER (WHERE destructive) AS numerator,
       count(*) AS denominator
FROM release_tool_execution
