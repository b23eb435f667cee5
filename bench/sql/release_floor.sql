-- Floor of the release-metrics benchmark: one DuckDB scan of the capture columns the release
-- metrics read, from the same Parquet export, parsing each nested JSON column once.
-- Not a metric: `python -m bench release:N` times `rcaeval release metrics` against it.
-- params: $files -- the Parquet file(s)
SELECT count(*)                                   AS captures,
       count(capture_id), count(captured_at), count(stage), count(population),
       count(incident_id), count(outage_test),
       sum(json_valid(response)::INT)              AS response,
       sum(json_valid(harness)::INT)               AS harness,
       sum(json_valid(labels)::INT)                AS labels,
       sum(json_valid(tool_executions)::INT)       AS tool_executions,
       sum(json_valid(knowledge_activations)::INT) AS knowledge_activations,
       sum(json_valid(review_ids)::INT)            AS review_ids
FROM read_parquet($files);
