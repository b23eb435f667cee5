-- Capture input from columns (a Parquet export or a polars frame): decides how one row with
-- the capture columns becomes one `capture_input` row.
-- reads: capture_source -- the Parquet file(s) or frame, with `filename` and
--   `file_row_number` (0-based) added by the reader; every capture column must be present
--   (nulls allowed). Scalar columns may be any type (they are written as JSON values);
--   nested columns (response, harness, labels, tool_executions, knowledge_activations,
--   review_ids) may be JSON text or structs/lists.
-- writes: capture_input -- as in input_jsonl.sql, but a view: every query that reads it
--   streams the file(s) again instead of holding a copy of the window in memory; a nested
--   column whose text is not JSON is NULL and named in `bad_json`, so validation reports it
--   for that row only.
CREATE OR REPLACE TEMP VIEW capture_input AS
SELECT filename                              AS src,
       file_row_number + 1                   AS line,
       to_json(capture_id)                   AS capture_id,
       to_json(captured_at)                  AS captured_at,
       to_json(stage)                        AS stage,
       to_json(population)                   AS population,
       to_json(incident_id)                  AS incident_id,
       TRY_CAST(response AS JSON)            AS response,
       TRY_CAST(harness AS JSON)             AS harness,
       TRY_CAST(labels AS JSON)              AS labels,
       TRY_CAST(tool_executions AS JSON)     AS tool_executions,
       TRY_CAST(knowledge_activations AS JSON) AS knowledge_activations,
       to_json(outage_test)                  AS outage_test,
       TRY_CAST(review_ids AS JSON)          AS review_ids,
       list_filter([
         CASE WHEN response IS NOT NULL AND TRY_CAST(response AS JSON) IS NULL
              THEN 'response' END,
         CASE WHEN harness IS NOT NULL AND TRY_CAST(harness AS JSON) IS NULL
              THEN 'harness' END,
         CASE WHEN labels IS NOT NULL AND TRY_CAST(labels AS JSON) IS NULL
              THEN 'labels' END,
         CASE WHEN tool_executions IS NOT NULL AND TRY_CAST(tool_executions AS JSON) IS NULL
              THEN 'tool_executions' END,
         CASE WHEN knowledge_activations IS NOT NULL
                   AND TRY_CAST(knowledge_activations AS JSON) IS NULL
              THEN 'knowledge_activations' END,
         CASE WHEN review_ids IS NOT NULL AND TRY_CAST(review_ids AS JSON) IS NULL
              THEN 'review_ids' END
       ], lambda x: x IS NOT NULL)                AS bad_json
FROM capture_source;
