-- Tool executions of the measured captures: one row per execution the capture records.
-- reads: release_capture (capture.sql), capture_input
-- writes: release_tool_execution(capture_id, tool, destructive, probe_template_id)
--   destructive is the capture's own flag (required by the format).
CREATE OR REPLACE TEMP TABLE release_tool_execution AS
SELECT capture_id, t.tool, t.destructive, t.probe_template_id
FROM (
  SELECT c.capture_id,
         unnest(from_json(i.tool_executions,
           '[{"tool": "VARCHAR", "destructive": "BOOLEAN", "probe_template_id": "VARCHAR"}]'))
           AS t
  FROM release_capture c JOIN capture_input i ON i.src = c.src AND i.line = c.line
);
