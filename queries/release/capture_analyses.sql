-- The analyses a capture export describes (for review history): one row per valid capture.
-- reads: capture_input, capture_problem (validate_captures.sql)
SELECT json_extract_string(i.harness, '$.analysis_hash')       AS analysis_hash,
       json_extract_string(i.incident_id, '$')                  AS incident_id,
       TRY_CAST(json_extract_string(i.captured_at, '$') AS TIMESTAMPTZ) AS analyzed_at,
       json_extract_string(i.capture_id, '$')                   AS capture_id,
       'capture'                                                AS source
FROM capture_input i ANTI JOIN capture_problem p ON p.src = i.src AND p.line = i.line;
