-- Capture validation: decides which captures are unusable and why, naming the field.
-- reads: capture_row (capture_scan.sql: its `ok` rows certainly pass every rule below; the
--   others keep their capture_input columns, as JSON, for this check)
-- params: $stages, $case_types, $expected_outcomes, $outcomes, $confidences, $origins,
--   $harness_statuses, $hash_pattern, $timestamp_pattern -- the name lists and patterns,
--   passed from their one home
--   (rcaeval/release/_models.py and the harness contract)
-- writes: capture_problem(src, line, capture_id, field, message) -- one row per problem;
--   a capture with any problem is left out of every metric and counted as invalid in the
--   provenance. Only the fields the release metrics read are checked here (the full
--   contract is the pydantic model `rcaeval.release.Capture`).
-- How: the rows capture_scan.sql could not pass (few: the invalid ones and the shapes it
--   cannot tell apart from invalid) are checked rule by rule: a problem is a CASE whose
--   condition is the check; list items are parsed into structs of JSON leaves -- a missing
--   key, a JSON null or a non-object item gives a NULL leaf, as the path functions do -- and
--   checked by list lambdas, the index i being 1-based there; then the rows with problems
--   are unnested. The duplicate-id check reads capture_row's src, line and cid of every row.
CREATE OR REPLACE TEMP TABLE capture_problem AS
WITH parsed AS (
  -- parse each response once: the checks below read these small pieces, not the document
  SELECT src, line, bad_json, capture_id, captured_at, stage, harness, labels,
         tool_executions, knowledge_activations, outage_test, review_ids,
         CASE WHEN json_type(capture_id) = 'VARCHAR' THEN json_extract_string(capture_id, '$') END AS cid,
         json_type(response) AS response_type,
         json_extract(response, ['$.outcome', '$.root_cause', '$.novel', '$.evidence',
                                 '$.hypotheses', '$.claims']) AS rp
  FROM (SELECT src, line, bad_json, capture_id_json AS capture_id,
               captured_at_json AS captured_at, stage_json AS stage, response, harness,
               labels, tools_json AS tool_executions, activations_json AS knowledge_activations,
               outage_test_json AS outage_test, review_ids
        FROM capture_row WHERE NOT ok)
),
base AS (
  SELECT * EXCLUDE (rp), rp[1] AS r_outcome, rp[2] AS r_rc, rp[3] AS r_novel,
         rp[4] AS r_evidence, rp[5] AS r_hypotheses, rp[6] AS r_claims,
         CASE WHEN json_type(rp[4]) = 'ARRAY' THEN from_json(rp[4],
           '[{"origin": "JSON", "usable": "JSON", "supports": "JSON"}]') END AS evidence,
         CASE WHEN json_type(rp[5]) = 'ARRAY' THEN from_json(rp[5], '[{"family": "JSON", "score": "JSON"}]') END AS hypotheses,
         CASE WHEN json_type(rp[6]) = 'ARRAY' THEN from_json(rp[6],
           '[{"material": "JSON", "evidence_ids": "JSON"}]') END AS claims,
         CASE WHEN json_type(tool_executions) = 'ARRAY'
              THEN from_json(tool_executions, '[{"destructive": "JSON"}]') END AS tools,
         CASE WHEN json_type(knowledge_activations) = 'ARRAY'
              THEN from_json(knowledge_activations, '[{"admissible": "JSON", "succeeded": "JSON",
                                                     "latency_seconds": "JSON"}]') END AS activations
  FROM parsed
),
per_row AS (
  SELECT src, line, cid,
    coalesce(list_transform(bad_json,
      lambda f: {'field': f, 'message': 'not valid JSON text'}), [])
    || list_filter([
      CASE WHEN cid IS NULL OR trim(cid) = ''
           THEN {'field': 'capture_id', 'message': 'required: a non-empty string'} END,
      CASE WHEN json_type(captured_at) IS DISTINCT FROM 'VARCHAR'
             OR NOT regexp_full_match(json_extract_string(captured_at, '$'), $timestamp_pattern)
             OR coalesce(TRY_CAST(upper(json_extract_string(captured_at, '$')) AS TIMESTAMPTZ)
                         NOT BETWEEN TIMESTAMPTZ '0001-01-01 00:00:00+00'
                                 AND TIMESTAMPTZ '9999-12-31 23:59:59.999999+00', true)
           THEN {'field': 'captured_at', 'message': 'required: an ISO 8601 / RFC 3339 timestamp '
                 || '(4-digit year, offset at most ±23:59, in years 1..9999 UTC), got '
                 || coalesce(CAST(captured_at AS VARCHAR), 'nothing')} END,
      CASE WHEN json_type(stage) IS DISTINCT FROM 'VARCHAR'
             OR NOT list_contains($stages, json_extract_string(stage, '$'))
           THEN {'field': 'stage', 'message': 'must be one of ' || array_to_string($stages, ', ')
                 || ', got ' || coalesce(CAST(stage AS VARCHAR), 'nothing')} END,
      CASE WHEN response_type IS DISTINCT FROM 'OBJECT' AND NOT list_contains(bad_json, 'response')
           THEN {'field': 'response', 'message': 'required: a JSON object (the RCA response)'} END,
      CASE WHEN response_type = 'OBJECT'
            AND (json_type(r_outcome) IS DISTINCT FROM 'VARCHAR'
                 OR NOT list_contains($outcomes, json_extract_string(r_outcome, '$')))
           THEN {'field': 'response.outcome',
                 'message': 'must be one of ' || array_to_string($outcomes, ', ')} END,
      CASE WHEN json_type(r_rc) NOT IN ('OBJECT', 'NULL')
           THEN {'field': 'response.root_cause', 'message': 'must be a JSON object'} END,
      CASE WHEN json_type(r_rc, '$.family') NOT IN ('VARCHAR', 'NULL')
           THEN {'field': 'response.root_cause.family', 'message': 'must be a string or null'} END,
      CASE WHEN json_type(r_rc, '$.confidence') IS NOT NULL
            AND NOT coalesce(list_contains($confidences, json_extract_string(r_rc, '$.confidence')), false)
           THEN {'field': 'response.root_cause.confidence',
                 'message': 'must be one of ' || array_to_string($confidences, ', ')} END,
      CASE WHEN json_type(r_rc, '$.evidence_ids') NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'response.root_cause.evidence_ids',
                 'message': 'must be a list of strings'} END,
      CASE WHEN json_type(r_novel) NOT IN ('BOOLEAN', 'NULL')
           THEN {'field': 'response.novel', 'message': 'must be true or false'} END,
      CASE WHEN response_type = 'OBJECT' AND json_type(r_evidence) NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'response.evidence', 'message': 'must be a list'} END,
      CASE WHEN response_type = 'OBJECT' AND json_type(r_hypotheses) NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'response.hypotheses', 'message': 'must be a list'} END,
      CASE WHEN response_type = 'OBJECT' AND json_type(r_claims) NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'response.claims', 'message': 'must be a list'} END,
      CASE WHEN json_type(harness) IS DISTINCT FROM 'OBJECT' AND NOT list_contains(bad_json, 'harness')
           THEN {'field': 'harness', 'message': 'required: a JSON object (the harness result)'} END,
      CASE WHEN json_type(harness) = 'OBJECT'
            AND (json_type(harness, '$.status') IS DISTINCT FROM 'VARCHAR'
                 OR NOT list_contains($harness_statuses, json_extract_string(harness, '$.status')))
           THEN {'field': 'harness.status',
                 'message': 'must be one of ' || array_to_string($harness_statuses, ', ')} END,
      CASE WHEN json_type(harness) = 'OBJECT'
            AND NOT coalesce(regexp_full_match(json_extract_string(harness, '$.analysis_hash'), $hash_pattern), false)
           THEN {'field': 'harness.analysis_hash',
                 'message': 'required: "sha256:" followed by 64 hex digits'} END,
      CASE WHEN json_type(labels) NOT IN ('OBJECT', 'NULL')
           THEN {'field': 'labels', 'message': 'must be a JSON object or null'} END,
      CASE WHEN json_type(labels, '$.case_type') NOT IN ('NULL')
            AND NOT coalesce(list_contains($case_types, json_extract_string(labels, '$.case_type')), false)
           THEN {'field': 'labels.case_type',
                 'message': 'must be one of ' || array_to_string($case_types, ', ')} END,
      CASE WHEN json_type(labels, '$.expected_outcome') NOT IN ('NULL')
            AND NOT coalesce(list_contains($expected_outcomes, json_extract_string(labels, '$.expected_outcome')), false)
           THEN {'field': 'labels.expected_outcome',
                 'message': 'must be one of ' || array_to_string($expected_outcomes, ', ')} END,
      CASE WHEN json_type(labels, '$.expected_family') NOT IN ('VARCHAR', 'NULL')
           THEN {'field': 'labels.expected_family', 'message': 'must be a string or null'} END,
      CASE WHEN json_type(labels, '$.relevant_evidence_ids') NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'labels.relevant_evidence_ids',
                 'message': 'must be a list of strings or null'} END,
      CASE WHEN json_type(tool_executions) NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'tool_executions', 'message': 'must be a list or null'} END,
      CASE WHEN json_type(knowledge_activations) NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'knowledge_activations', 'message': 'must be a list or null'} END,
      CASE WHEN json_type(review_ids) NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'review_ids', 'message': 'must be a list or null'} END,
      CASE WHEN json_type(outage_test) NOT IN ('VARCHAR', 'NULL')
           THEN {'field': 'outage_test',
                 'message': 'must be a string (the dependency taken down) or null'} END
    ], lambda x: x IS NOT NULL)
    || coalesce(flatten(list_transform(hypotheses, lambda h, i: list_filter([
      CASE WHEN json_type(h.family) IS DISTINCT FROM 'VARCHAR'
           THEN {'field': 'response.hypotheses[' || (i - 1) || '].family',
                 'message': 'required: a string'} END,
      CASE WHEN json_type(h.score) NOT IN ('NULL', 'UBIGINT', 'BIGINT', 'DOUBLE')
             OR TRY_CAST(json_extract_string(h.score, '$') AS DOUBLE) < 0
             OR NOT isfinite(TRY_CAST(json_extract_string(h.score, '$') AS DOUBLE))
           THEN {'field': 'response.hypotheses[' || (i - 1) || '].score',
                 'message': 'must be a finite non-negative number (the ranker score) or null, got '
                            || CAST(h.score AS VARCHAR)} END
    ], lambda x: x IS NOT NULL))), [])
    || coalesce(flatten(list_transform(evidence, lambda e, i: list_filter([
      CASE WHEN json_type(e.origin) IS DISTINCT FROM 'VARCHAR'
             OR NOT list_contains($origins, json_extract_string(e.origin, '$'))
           THEN {'field': 'response.evidence[' || (i - 1) || '].origin',
                 'message': 'must be one of ' || array_to_string($origins, ', ')} END,
      CASE WHEN json_type(e.usable) NOT IN ('BOOLEAN', 'NULL')
           THEN {'field': 'response.evidence[' || (i - 1) || '].usable',
                 'message': 'must be true or false'} END,
      CASE WHEN json_type(e.supports) NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'response.evidence[' || (i - 1) || '].supports',
                 'message': 'must be a list of strings'} END
    ], lambda x: x IS NOT NULL))), [])
    || coalesce(flatten(list_transform(claims, lambda c, i: list_filter([
      CASE WHEN json_type(c.material) NOT IN ('BOOLEAN', 'NULL')
           THEN {'field': 'response.claims[' || (i - 1) || '].material',
                 'message': 'must be true or false'} END,
      CASE WHEN json_type(c.evidence_ids) NOT IN ('ARRAY', 'NULL')
           THEN {'field': 'response.claims[' || (i - 1) || '].evidence_ids',
                 'message': 'must be a list of strings'} END
    ], lambda x: x IS NOT NULL))), [])
    || coalesce(list_filter(list_transform(tools, lambda t, i:
      CASE WHEN json_type(t.destructive) IS DISTINCT FROM 'BOOLEAN'
           THEN {'field': 'tool_executions[' || (i - 1) || '].destructive',
                 'message': 'required: true or false'} END), lambda x: x IS NOT NULL), [])
    || coalesce(flatten(list_transform(activations, lambda a, i: list_filter([
      CASE WHEN json_type(a.admissible) IS DISTINCT FROM 'BOOLEAN'
           THEN {'field': 'knowledge_activations[' || (i - 1) || '].admissible',
                 'message': 'required: true or false'} END,
      CASE WHEN json_type(a.succeeded) NOT IN ('BOOLEAN', 'NULL')
           THEN {'field': 'knowledge_activations[' || (i - 1) || '].succeeded',
                 'message': 'must be true or false'} END,
      CASE WHEN json_type(a.latency_seconds) NOT IN ('NULL', 'UBIGINT', 'BIGINT', 'DOUBLE')
             OR TRY_CAST(json_extract_string(a.latency_seconds, '$') AS DOUBLE) < 0
             OR NOT isfinite(TRY_CAST(json_extract_string(a.latency_seconds, '$') AS DOUBLE))
           THEN {'field': 'knowledge_activations[' || (i - 1) || '].latency_seconds',
                 'message': 'must be a finite number >= 0 or null'} END
    ], lambda x: x IS NOT NULL))), [])
    AS problems
  FROM base
),
duplicates AS (
  SELECT src, line, cid, 'capture_id' AS field,
         'duplicate capture_id (first at ' || first_src || ':' || first_line || ')' AS message
  FROM (SELECT src, line, cid,
               first_value(src) OVER w AS first_src, first_value(line) OVER w AS first_line,
               row_number() OVER w AS k
        FROM (SELECT src, line, cid FROM capture_row)
        WHERE cid IS NOT NULL AND trim(cid) <> ''
        WINDOW w AS (PARTITION BY cid ORDER BY src, line))
  WHERE k > 1
)
SELECT src, line, cid AS capture_id, p.field AS field, p.message AS message
FROM (SELECT src, line, cid, unnest(problems) AS p FROM per_row WHERE len(problems) > 0)
UNION ALL
SELECT src, line, cid, field, message FROM duplicates
ORDER BY src, line, field;
