-- Tool executions of the measured captures: one row per execution the capture records.
-- reads: release_capture (capture.sql: tool_executions, parsed by capture_scan.sql; the
--   destructive flag is still JSON text there, true or false as validation requires)
-- writes: release_tool_execution (a view) (capture_id, tool, destructive, probe_template_id)
--   destructive is the capture's own flag (required by the format).
CREATE OR REPLACE TEMP VIEW release_tool_execution AS
SELECT capture_id, t.tool, t.destructive = 'true' AS destructive, t.probe_template_id
FROM (SELECT capture_id, unnest(tool_executions) AS t FROM release_capture);
