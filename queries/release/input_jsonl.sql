-- Capture input from JSON lines: decides how one JSONL capture becomes one `capture_input` row.
-- reads: capture_raw(src VARCHAR, line BIGINT, raw VARCHAR) -- one syntactically valid JSON
--   object per row (the Python reader has already reported lines that are not JSON objects,
--   with their file and line)
-- writes: capture_input -- one row per capture; every field kept as JSON so that the
--   validation query can name a field of the wrong type instead of failing the whole file;
--   capture_text -- the same rows for capture_scan.sql (there, as for Parquet, the nested
--   columns are text to parse; here they are JSON already).
CREATE OR REPLACE TEMP TABLE capture_input AS
SELECT src, line,
       json_extract(j, '$.capture_id')            AS capture_id,
       json_extract(j, '$.captured_at')           AS captured_at,
       json_extract(j, '$.stage')                 AS stage,
       json_extract(j, '$.population')            AS population,
       json_extract(j, '$.incident_id')           AS incident_id,
       json_extract(j, '$.response')              AS response,
       json_extract(j, '$.harness')               AS harness,
       json_extract(j, '$.labels')                AS labels,
       json_extract(j, '$.tool_executions')       AS tool_executions,
       json_extract(j, '$.knowledge_activations') AS knowledge_activations,
       json_extract(j, '$.outage_test')           AS outage_test,
       json_extract(j, '$.review_ids')            AS review_ids,
       json_extract(j, '$.knowledge')             AS knowledge,   -- capture/2
       json_extract(j, '$.trace')                 AS trace        -- capture/2
FROM (SELECT src, line, CAST(raw AS JSON) AS j FROM capture_raw);

CREATE OR REPLACE TEMP VIEW capture_text AS SELECT * FROM capture_input;
