-- Capture validation of the capture/2 fields: decides which captures carry an unusable
-- `knowledge`, `trace` (trace-v3) or `response.confidence_diagnostics`, naming the field.
-- reads: capture_row (capture_scan.sql: knowledge_text, trace_text, cd_text on every row)
-- params: $time_relations, $snapshot_statuses, $trace_format -- the name lists, and $blank
--   (BLANK_PATTERN: a text the models' whitespace stripping leaves empty, which a required
--   non-empty string refuses), passed from their one home (rcaeval/release/_models.py)
-- writes: appends to capture_problem(src, line, capture_id, field, message) (validate_
--   captures.sql created it); a capture with a problem here is left out of every metric and
--   counted invalid, like any other. A capture/1 row (all three null) has none.
-- How: only rows with one of the three set are read, in two steps.
--   1. The screen (`ok`): each text is parsed once, by one from_json into a struct of exactly
--      the leaves the rules below test, and `ok` is true only when every rule certainly
--      holds. A leaf whose JSON type a rule checks stays JSON text, which tells its type by
--      its first character (`"` string, `[` list; from_json gives NULL for a missing key or
--      a JSON null, a struct of NULLs for a value that is not an object, NULL for a list
--      that is not a list or for text that is not JSON); a number is checked as text (an
--      integer >= 1: `[1-9][0-9]{0,14}`, no sign, fraction or exponent; any number: a digit
--      first, at most 15 characters, then finite by its DOUBLE value); a value typed VARCHAR
--      is checked against a name list (a JSON value that is not a string becomes text that
--      is in no list: the lists hold lower-case words, tests/release keeps them so); a
--      required non-empty string passes only when its first character is printable ASCII
--      other than a space, `"` or `\` (anything else is left to the rules). What
--      the screen cannot decide cheaply makes the row doubtful, never ok (a null or
--      missing list, a negative number): `ok` has no false positives.
--   2. The rules, on the doubtful rows only (a row that is ok has no problem here): each
--      value is cast to JSON once and checked leaf by leaf (a missing key or JSON null gives
--      a NULL leaf), list items by lambdas (1-based i). A number is a JSON number that is
--      finite (a NaN or an Infinity, which Parquet JSON text can carry, is refused: in
--      DuckDB NaN compares greater than every number, so the range checks test isfinite
--      first).
INSERT INTO capture_problem
WITH parsed AS (
  SELECT src, line, cid, knowledge_text, trace_text, cd_text,
         try(from_json(knowledge_text, '{"package_id": "JSON", "activation_path": "JSON"}')) AS ks,
         try(from_json(trace_text, '{"format": "VARCHAR", "status": "VARCHAR",
           "observations": [{"order": "JSON", "collector": "JSON", "plane": "JSON",
             "probe_template_id": "JSON", "hypothesis": "JSON", "evidence_id": "JSON",
             "incident_time_relation": "VARCHAR", "supporting_source_groups": ["JSON"],
             "contradicting_source_groups": ["JSON"], "plan_step": "JSON"}]}')) AS ts,
         try(from_json(cd_text, '{"probability": "JSON", "independent_source_groups": ["JSON"],
           "adjustments": [{"name": "JSON", "delta": "JSON"}],
           "gates": [{"gate": "JSON", "passed": "JSON"}]}')) AS ds
  FROM capture_row
  WHERE knowledge_text IS NOT NULL OR trace_text IS NOT NULL OR cd_text IS NOT NULL
),
screened AS (
  SELECT src, line, cid, knowledge_text, trace_text, cd_text,
    (knowledge_text IS NULL OR coalesce(
       regexp_matches(ks.package_id, '^"[!#-\[\]-~]')
       AND regexp_matches(ks.activation_path, '^"[!#-\[\]-~]'), false))
    AND (trace_text IS NULL OR coalesce(
       ts.format = $trace_format
       AND list_contains($snapshot_statuses, ts.status)
       AND ts.observations IS NOT NULL
       AND len(list_filter(ts.observations, lambda o: NOT coalesce(
             regexp_full_match(CAST(o.order AS VARCHAR), '[1-9][0-9]{0,14}')
             AND regexp_matches(o.collector, '^"[!#-\[\]-~]')
             AND regexp_matches(o.plane, '^"[!#-\[\]-~]')
             AND list_contains($time_relations, o.incident_time_relation)
             AND coalesce(starts_with(o.probe_template_id, '"'), true)
             AND coalesce(starts_with(o.hypothesis, '"'), true)
             AND coalesce(starts_with(o.evidence_id, '"'), true)
             AND o.supporting_source_groups IS NOT NULL
             AND len(list_filter(o.supporting_source_groups,
                                 lambda g: NOT coalesce(starts_with(g, '"'), false))) = 0
             AND o.contradicting_source_groups IS NOT NULL
             AND len(list_filter(o.contradicting_source_groups,
                                 lambda g: NOT coalesce(starts_with(g, '"'), false))) = 0
             AND (o.plan_step IS NULL
                  OR regexp_full_match(CAST(o.plan_step AS VARCHAR), '[1-9][0-9]{0,14}')),
             false))) = 0
       -- every order is an integer text here, so distinct texts are distinct orders
       AND len(list_distinct(list_transform(ts.observations, lambda o: CAST(o.order AS VARCHAR))))
           = len(ts.observations), false))
    AND (cd_text IS NULL OR coalesce(
       (ds.probability IS NULL
        OR regexp_full_match(CAST(ds.probability AS VARCHAR), '[0-9][0-9.eE+-]{0,14}')
           AND isfinite(TRY_CAST(ds.probability AS DOUBLE))
           AND TRY_CAST(ds.probability AS DOUBLE) BETWEEN 0 AND 1)
       AND ds.independent_source_groups IS NOT NULL
       AND len(list_filter(ds.independent_source_groups,
                           lambda g: NOT coalesce(starts_with(g, '"'), false))) = 0
       AND ds.adjustments IS NOT NULL AND ds.gates IS NOT NULL
       AND len(list_filter(ds.adjustments, lambda a: NOT coalesce(
             starts_with(a.name, '"')
             AND regexp_full_match(CAST(a.delta AS VARCHAR), '-?[0-9][0-9.eE+-]{0,14}')
             AND isfinite(TRY_CAST(a.delta AS DOUBLE)), false))) = 0
       AND len(list_filter(ds.gates, lambda g: NOT coalesce(
             starts_with(g.gate, '"') AND g.passed IN ('true', 'false'), false))) = 0, false))
    AS ok
  FROM parsed
),
src AS (
  SELECT src, line, cid, knowledge_text, trace_text, cd_text,
         TRY_CAST(knowledge_text AS JSON) AS k, TRY_CAST(trace_text AS JSON) AS t,
         TRY_CAST(cd_text AS JSON) AS d
  FROM screened
  WHERE NOT ok
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
              OR regexp_full_match(json_extract_string(k, '$.package_id'), $blank))
         THEN {'field': 'knowledge.package_id', 'message': 'required: a non-empty string'} END,
    CASE WHEN json_type(k) = 'OBJECT' AND (json_type(k, '$.activation_path') IS DISTINCT FROM 'VARCHAR'
              OR regexp_full_match(json_extract_string(k, '$.activation_path'), $blank))
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
    CASE WHEN json_type(d) = 'OBJECT' AND json_type(d, '$.probability') <> 'NULL'
              AND NOT coalesce(json_type(d, '$.probability') IN ('UBIGINT', 'BIGINT', 'DOUBLE')
                  AND isfinite(TRY_CAST(json_extract(d, '$.probability') AS DOUBLE))
                  AND TRY_CAST(json_extract(d, '$.probability') AS DOUBLE) BETWEEN 0 AND 1, false)
         THEN {'field': 'response.confidence_diagnostics.probability',
               'message': 'must be a probability in [0, 1] or null, got '
                          || CAST(json_extract(d, '$.probability') AS VARCHAR)} END,
    CASE WHEN json_type(d) = 'OBJECT'
              AND (json_type(d, '$.independent_source_groups') NOT IN ('ARRAY', 'NULL')
                   OR len(list_filter(from_json(json_extract(d, '$.independent_source_groups'),
                                                '["JSON"]'),
                                      lambda g: json_type(g) IS DISTINCT FROM 'VARCHAR')) > 0)
         THEN {'field': 'response.confidence_diagnostics.independent_source_groups',
               'message': 'must be a list of strings'} END,
    CASE WHEN json_type(d) = 'OBJECT' AND json_type(d, '$.adjustments') NOT IN ('ARRAY', 'NULL')
         THEN {'field': 'response.confidence_diagnostics.adjustments', 'message': 'must be a list'} END,
    CASE WHEN json_type(d) = 'OBJECT' AND json_type(d, '$.gates') NOT IN ('ARRAY', 'NULL')
         THEN {'field': 'response.confidence_diagnostics.gates', 'message': 'must be a list'} END
  ], lambda x: x IS NOT NULL)
  || coalesce(flatten(list_transform(obs, lambda o, i: list_filter([
    CASE WHEN NOT coalesce(json_type(o.order) IN ('UBIGINT', 'BIGINT')
                           AND TRY_CAST(o.order AS BIGINT) >= 1, false)
         THEN {'field': 'trace.observations[' || (i - 1) || '].order',
               'message': 'required: an integer from 1 to 9223372036854775807 (the position in '
                          || 'the investigation)'} END,
    CASE WHEN json_type(o.collector) IS DISTINCT FROM 'VARCHAR'
              OR regexp_full_match(json_extract_string(o.collector, '$'), $blank)
         THEN {'field': 'trace.observations[' || (i - 1) || '].collector',
               'message': 'required: a non-empty string'} END,
    CASE WHEN json_type(o.plane) IS DISTINCT FROM 'VARCHAR'
              OR regexp_full_match(json_extract_string(o.plane, '$'), $blank)
         THEN {'field': 'trace.observations[' || (i - 1) || '].plane',
               'message': 'required: a non-empty string (the telemetry plane)'} END,
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
    CASE WHEN coalesce(json_type(o.plan_step), 'NULL') <> 'NULL' AND NOT coalesce(json_type(o.plan_step) IN ('UBIGINT', 'BIGINT')
                                                  AND TRY_CAST(o.plan_step AS BIGINT) >= 1, false)
         THEN {'field': 'trace.observations[' || (i - 1) || '].plan_step',
               'message': 'must be an integer from 1 to 9223372036854775807 (the plan step it '
                          || 'executes) or null'} END
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
