-- Capture validation of the capture/2 fields: decides which captures carry an unusable
-- `knowledge`, `trace` (trace-v3) or `response.confidence_diagnostics`, naming the field.
-- reads: capture_row (capture_scan.sql: knowledge_text, trace_text, cd_text on every row)
-- params: $time_relations, $snapshot_statuses, $trace_format -- the name lists, passed from
--   their one home (rcaeval/release/_models.py)
-- writes: appends to capture_problem(src, line, capture_id, field, message) (validate_
--   captures.sql created it); a capture with a problem here is left out of every metric and
--   counted invalid, like any other. A capture/1 row (all three null) has none.
-- How: only rows with one of the three set are read; each value is parsed once into a struct
--   of JSON leaves (a missing key or JSON null gives a NULL leaf) and checked leaf by leaf,
--   list items by lambdas (1-based i). A number is a JSON number that is finite (a NaN or an
--   Infinity, which Parquet JSON text can carry, is refused: in DuckDB NaN compares greater
--   than every number, so the range checks test isfinite first).
INSERT INTO capture_problem
WITH src AS (
  SELECT src, line, cid, knowledge_text, trace_text, cd_text,
         TRY_CAST(knowledge_text AS JSON) AS k, TRY_CAST(trace_text AS JSON) AS t,
         TRY_CAST(cd_text AS JSON) AS d
  FROM capture_row
  WHERE knowledge_text IS NOT NULL OR trace_text IS NOT NULL OR cd_text IS NOT NULL
),
typed AS (
  SELECT *,
    CASE WHEN json_type(t, '$.observations') = 'ARRAY' THEN from_json(json_extract(t, '$.observations'),
      '[{"order": "JSON", "collector": "JSON", "plane": "JSON", "probe_template_id": "JSON",
         "hypothesis": "JSON", "evidence_id": "JSON", "incident_time_relation": "JSON",
         "supporting_source_groups": "JSON", "contradicting_source_groups": "JSON",
         "plan_step": "JSON"}]') END AS obs,
    CASE WHEN json_type(d, '$.adjustments') = 'ARRAY'
         THEN from_json(json_extract(d, '$.adjustments'), '[{"name": "JSON", "delta": "JSON"}]') END AS adj,
    CASE WHEN json_type(d, '$.gates') = 'ARRAY'
         THEN from_json(json_extract(d, '$.gates'), '[{"gate": "JSON", "passed": "JSON"}]') END AS gates
  FROM src
),
per_row AS (
  SELECT src, line, cid, list_filter([
    -- knowledge
    CASE WHEN knowledge_text IS NOT NULL AND k IS NULL
         THEN {'field': 'knowledge', 'message': 'is not JSON'} END,
    CASE WHEN json_type(k) NOT IN ('OBJECT', 'NULL')
         THEN {'field': 'knowledge', 'message': 'must be an object or null'} END,
    CASE WHEN json_type(k) = 'OBJECT' AND (json_type(k, '$.package_id') IS DISTINCT FROM 'VARCHAR'
              OR trim(json_extract_string(k, '$.package_id')) = '')
         THEN {'field': 'knowledge.package_id', 'message': 'required: a non-empty string'} END,
    CASE WHEN json_type(k) = 'OBJECT' AND (json_type(k, '$.activation_path') IS DISTINCT FROM 'VARCHAR'
              OR trim(json_extract_string(k, '$.activation_path')) = '')
         THEN {'field': 'knowledge.activation_path', 'message': 'required: a non-empty string'} END,
    -- trace (trace-v3 case snapshot)
    CASE WHEN trace_text IS NOT NULL AND t IS NULL
         THEN {'field': 'trace', 'message': 'is not JSON'} END,
    CASE WHEN json_type(t) NOT IN ('OBJECT', 'NULL')
         THEN {'field': 'trace', 'message': 'must be an object or null'} END,
    CASE WHEN json_type(t) = 'OBJECT'
              AND json_extract_string(t, '$.format') IS DISTINCT FROM $trace_format
         THEN {'field': 'trace.format', 'message': 'required: "' || $trace_format || '"'} END,
    CASE WHEN json_type(t) = 'OBJECT' AND (json_type(t, '$.status') IS DISTINCT FROM 'VARCHAR'
              OR NOT list_contains($snapshot_statuses, json_extract_string(t, '$.status')))
         THEN {'field': 'trace.status',
               'message': 'must be one of ' || array_to_string($snapshot_statuses, ', ')} END,
    CASE WHEN json_type(t) = 'OBJECT' AND json_type(t, '$.observations') NOT IN ('ARRAY', 'NULL')
         THEN {'field': 'trace.observations', 'message': 'must be a list'} END,
    CASE WHEN len(list_distinct(list_transform(obs, lambda o: CAST(o.order AS VARCHAR))))
              < len(list_filter(obs, lambda o: o.order IS NOT NULL))
         THEN {'field': 'trace.observations', 'message': 'each observation needs its own order'} END,
    -- response.confidence_diagnostics (rca_response/2)
    CASE WHEN json_type(d) NOT IN ('OBJECT', 'NULL')
         THEN {'field': 'response.confidence_diagnostics', 'message': 'must be an object or null'} END,
    CASE WHEN json_type(d) = 'OBJECT' AND json_type(d, '$.probability') IS DISTINCT FROM 'NULL'
              AND NOT coalesce(json_type(d, '$.probability') IN ('UBIGINT', 'BIGINT', 'DOUBLE')
                  AND isfinite(TRY_CAST(json_extract(d, '$.probability') AS DOUBLE))
                  AND TRY_CAST(json_extract(d, '$.probability') AS DOUBLE) BETWEEN 0 AND 1, false)
         THEN {'field': 'response.confidence_diagnostics.probability',
               'message': 'must be a probability in [0, 1] or null, got '
                          || CAST(json_extract(d, '$.probability') AS VARCHAR)} END,
    CASE WHEN json_type(d) = 'OBJECT'
              AND json_type(d, '$.independent_source_groups') NOT IN ('ARRAY', 'NULL')
         THEN {'field': 'response.confidence_diagnostics.independent_source_groups',
               'message': 'must be a list of strings'} END,
    CASE WHEN json_type(d) = 'OBJECT' AND json_type(d, '$.adjustments') NOT IN ('ARRAY', 'NULL')
         THEN {'field': 'response.confidence_diagnostics.adjustments', 'message': 'must be a list'} END,
    CASE WHEN json_type(d) = 'OBJECT' AND json_type(d, '$.gates') NOT IN ('ARRAY', 'NULL')
         THEN {'field': 'response.confidence_diagnostics.gates', 'message': 'must be a list'} END
  ], lambda x: x IS NOT NULL)
  || coalesce(flatten(list_transform(obs, lambda o, i: list_filter([
    CASE WHEN json_type(o.order) NOT IN ('UBIGINT', 'BIGINT') OR TRY_CAST(o.order AS BIGINT) < 1
         THEN {'field': 'trace.observations[' || (i - 1) || '].order',
               'message': 'required: an integer >= 1 (the position in the investigation)'} END,
    CASE WHEN json_type(o.collector) IS DISTINCT FROM 'VARCHAR'
         THEN {'field': 'trace.observations[' || (i - 1) || '].collector',
               'message': 'required: a string'} END,
    CASE WHEN json_type(o.plane) IS DISTINCT FROM 'VARCHAR'
         THEN {'field': 'trace.observations[' || (i - 1) || '].plane',
               'message': 'required: a string (the telemetry plane)'} END,
    CASE WHEN json_type(o.incident_time_relation) IS DISTINCT FROM 'VARCHAR'
              OR NOT list_contains($time_relations, json_extract_string(o.incident_time_relation, '$'))
         THEN {'field': 'trace.observations[' || (i - 1) || '].incident_time_relation',
               'message': 'must be one of ' || array_to_string($time_relations, ', ')} END,
    CASE WHEN json_type(o.probe_template_id) NOT IN ('VARCHAR', 'NULL')
         THEN {'field': 'trace.observations[' || (i - 1) || '].probe_template_id',
               'message': 'must be a string or null'} END,
    CASE WHEN json_type(o.hypothesis) NOT IN ('VARCHAR', 'NULL')
         THEN {'field': 'trace.observations[' || (i - 1) || '].hypothesis',
               'message': 'must be a string or null'} END,
    CASE WHEN json_type(o.evidence_id) NOT IN ('VARCHAR', 'NULL')
         THEN {'field': 'trace.observations[' || (i - 1) || '].evidence_id',
               'message': 'must be a string or null'} END,
    CASE WHEN json_type(o.supporting_source_groups) NOT IN ('ARRAY', 'NULL')
              OR len(list_filter(from_json(o.supporting_source_groups, '["JSON"]'),
                                 lambda g: json_type(g) IS DISTINCT FROM 'VARCHAR')) > 0
         THEN {'field': 'trace.observations[' || (i - 1) || '].supporting_source_groups',
               'message': 'must be a list of strings'} END,
    CASE WHEN json_type(o.contradicting_source_groups) NOT IN ('ARRAY', 'NULL')
              OR len(list_filter(from_json(o.contradicting_source_groups, '["JSON"]'),
                                 lambda g: json_type(g) IS DISTINCT FROM 'VARCHAR')) > 0
         THEN {'field': 'trace.observations[' || (i - 1) || '].contradicting_source_groups',
               'message': 'must be a list of strings'} END,
    CASE WHEN json_type(o.plan_step) NOT IN ('UBIGINT', 'BIGINT', 'NULL')
              OR TRY_CAST(o.plan_step AS BIGINT) < 1
         THEN {'field': 'trace.observations[' || (i - 1) || '].plan_step',
               'message': 'must be an integer >= 1 (the plan step it executes) or null'} END
  ], lambda x: x IS NOT NULL))), [])
  || coalesce(flatten(list_transform(adj, lambda a, i: list_filter([
    CASE WHEN json_type(a.name) IS DISTINCT FROM 'VARCHAR'
         THEN {'field': 'response.confidence_diagnostics.adjustments[' || (i - 1) || '].name',
               'message': 'required: a string'} END,
    CASE WHEN NOT coalesce(json_type(a.delta) IN ('UBIGINT', 'BIGINT', 'DOUBLE')
                           AND isfinite(TRY_CAST(a.delta AS DOUBLE)), false)
         THEN {'field': 'response.confidence_diagnostics.adjustments[' || (i - 1) || '].delta',
               'message': 'required: a finite number'} END
  ], lambda x: x IS NOT NULL))), [])
  || coalesce(flatten(list_transform(gates, lambda g, i: list_filter([
    CASE WHEN json_type(g.gate) IS DISTINCT FROM 'VARCHAR'
         THEN {'field': 'response.confidence_diagnostics.gates[' || (i - 1) || '].gate',
               'message': 'required: a string'} END,
    CASE WHEN json_type(g.passed) IS DISTINCT FROM 'BOOLEAN'
         THEN {'field': 'response.confidence_diagnostics.gates[' || (i - 1) || '].passed',
               'message': 'required: true or false'} END
  ], lambda x: x IS NOT NULL))), []) AS problems
  FROM typed
)
SELECT src, line, cid AS capture_id, p.field, p.message
FROM (SELECT src, line, cid, unnest(problems) AS p FROM per_row WHERE len(problems) > 0);
