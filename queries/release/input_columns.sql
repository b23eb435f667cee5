-- Capture input from columns (a Parquet export or a polars frame): decides how one row with
-- the capture columns becomes one `capture_text` / `capture_input` row.
-- reads: capture_source -- the Parquet file(s) or frame, with `filename` and
--   `file_row_number` (0-based) added by the reader; every capture column must be present
--   (nulls allowed). Scalar columns may be any type (they are written as JSON values; a
--   captured_at with a time zone as its UTC time);
--   nested columns (response, harness, labels, tool_executions, knowledge_activations,
--   review_ids; capture/2: knowledge, trace -- added as null columns when a capture/1 export
--   lacks them) may be JSON text or structs/lists.
-- writes: two views (every query that reads them streams the file(s) again instead of
--   holding a copy of the window in memory):
--   capture_text -- src, line, the scalar columns as JSON values, the nested columns as text
--     as it was exported (a struct or list column written as JSON text), not yet checked to
--     be JSON: capture_scan.sql parses each of them once and names a column whose text is
--     not JSON (`bad_json`), so validation reports it for that row only;
--   capture_input -- as in input_jsonl.sql: the same with each nested column as JSON, NULL
--     when its text is not JSON.
CREATE OR REPLACE TEMP VIEW capture_text AS
SELECT filename                              AS src,
       file_row_number + 1                   AS line,
       to_json(capture_id)                   AS capture_id,
       -- a timestamp with time zone (Parquet's UTC-adjusted timestamp, a polars Datetime
       -- with a time zone) is written as its UTC time (the session is UTC): as JSON it would
       -- carry a "+00" offset, which the timestamp rule does not accept
       CASE WHEN typeof(captured_at) = 'TIMESTAMP WITH TIME ZONE'
            THEN to_json(CAST(captured_at AS TIMESTAMP))
            ELSE to_json(captured_at) END    AS captured_at,
       to_json(stage)                        AS stage,
       to_json(population)                   AS population,
       to_json(incident_id)                  AS incident_id,
       -- a text column is taken as it is; any other type is written as JSON (the branch
       -- not taken for a column's type is dropped when the query is planned)
       CASE WHEN typeof(response) IN ('VARCHAR', 'JSON') THEN CAST(response AS VARCHAR)
            ELSE CAST(to_json(response) AS VARCHAR) END                   AS response,
       CASE WHEN typeof(harness) IN ('VARCHAR', 'JSON') THEN CAST(harness AS VARCHAR)
            ELSE CAST(to_json(harness) AS VARCHAR) END                    AS harness,
       CASE WHEN typeof(labels) IN ('VARCHAR', 'JSON') THEN CAST(labels AS VARCHAR)
            ELSE CAST(to_json(labels) AS VARCHAR) END                     AS labels,
       CASE WHEN typeof(tool_executions) IN ('VARCHAR', 'JSON')
            THEN CAST(tool_executions AS VARCHAR)
            ELSE CAST(to_json(tool_executions) AS VARCHAR) END            AS tool_executions,
       CASE WHEN typeof(knowledge_activations) IN ('VARCHAR', 'JSON')
            THEN CAST(knowledge_activations AS VARCHAR)
            ELSE CAST(to_json(knowledge_activations) AS VARCHAR) END      AS knowledge_activations,
       to_json(outage_test)                  AS outage_test,
       CASE WHEN typeof(review_ids) IN ('VARCHAR', 'JSON') THEN CAST(review_ids AS VARCHAR)
            ELSE CAST(to_json(review_ids) AS VARCHAR) END                 AS review_ids,
       CASE WHEN typeof(knowledge) IN ('VARCHAR', 'JSON') THEN CAST(knowledge AS VARCHAR)
            ELSE CAST(to_json(knowledge) AS VARCHAR) END                  AS knowledge,
       CASE WHEN typeof(trace) IN ('VARCHAR', 'JSON') THEN CAST(trace AS VARCHAR)
            ELSE CAST(to_json(trace) AS VARCHAR) END                      AS trace
FROM capture_source;

CREATE OR REPLACE TEMP VIEW capture_input AS
SELECT src, line, capture_id, captured_at, stage, population, incident_id,
       TRY_CAST(response AS JSON)              AS response,
       TRY_CAST(harness AS JSON)               AS harness,
       TRY_CAST(labels AS JSON)                AS labels,
       TRY_CAST(tool_executions AS JSON)       AS tool_executions,
       TRY_CAST(knowledge_activations AS JSON) AS knowledge_activations,
       outage_test,
       TRY_CAST(review_ids AS JSON)            AS review_ids,
       TRY_CAST(knowledge AS JSON)             AS knowledge,
       TRY_CAST(trace AS JSON)                 AS trace
FROM capture_text;
