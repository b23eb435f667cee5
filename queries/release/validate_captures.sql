-- Capture validation: decides which captures are unusable and why, naming the field.
-- reads: capture_input (input_jsonl.sql / input_columns.sql)
-- params: $stages, $case_types, $expected_outcomes, $outcomes, $confidences, $origins,
--   $harness_statuses, $hash_pattern -- the name lists, passed from their one home
--   (rcaeval/release/_models.py and the harness contract)
-- writes: capture_problem(src, line, capture_id, field, message) -- one row per problem;
--   a capture with any problem is left out of every metric and counted as invalid in the
--   provenance. Only the fields the release metrics read are checked here (the full
--   contract is the pydantic model `rcaeval.release.Capture`).
CREATE OR REPLACE TEMP TABLE capture_problem AS
WITH parsed AS MATERIALIZED (
  -- parse each response once: the checks below read these small pieces, not the document
  SELECT src, line, capture_input.* EXCLUDE (response),
         CASE WHEN json_type(capture_id) = 'VARCHAR' THEN json_extract_string(capture_id, '$') END AS cid,
         json_type(response) AS response_type,
         json_extract(response, ['$.outcome', '$.root_cause', '$.novel', '$.evidence',
                                 '$.hypotheses', '$.claims']) AS rp
  FROM capture_input
),
base AS MATERIALIZED (
  SELECT * EXCLUDE (rp), rp[1] AS r_outcome, rp[2] AS r_rc, rp[3] AS r_novel,
         rp[4] AS r_evidence, rp[5] AS r_hypotheses, rp[6] AS r_claims
  FROM parsed
),
evidence AS MATERIALIZED (
  SELECT src, line, cid, unnest(range(len(items))) AS i, unnest(items) AS e
  FROM (SELECT src, line, cid, json_extract(r_evidence, '$[*]') AS items FROM base
        WHERE json_type(r_evidence) = 'ARRAY')
),
hypotheses AS MATERIALIZED (
  SELECT src, line, cid, unnest(range(len(items))) AS i, unnest(items) AS h
  FROM (SELECT src, line, cid, json_extract(r_hypotheses, '$[*]') AS items FROM base
        WHERE json_type(r_hypotheses) = 'ARRAY')
),
claims AS MATERIALIZED (
  SELECT src, line, cid, unnest(range(len(items))) AS i, unnest(items) AS c
  FROM (SELECT src, line, cid, json_extract(r_claims, '$[*]') AS items FROM base
        WHERE json_type(r_claims) = 'ARRAY')
),
tools AS MATERIALIZED (
  SELECT src, line, cid, unnest(range(len(items))) AS i, unnest(items) AS t
  FROM (SELECT src, line, cid, json_extract(tool_executions, '$[*]') AS items FROM base
        WHERE json_type(tool_executions) = 'ARRAY')
),
activations AS MATERIALIZED (
  SELECT src, line, cid, unnest(range(len(items))) AS i, unnest(items) AS a
  FROM (SELECT src, line, cid, json_extract(knowledge_activations, '$[*]') AS items FROM base
        WHERE json_type(knowledge_activations) = 'ARRAY')
),
problems AS (
  SELECT src, line, cid, unnest(bad_json) AS field, 'not valid JSON text' AS message
  FROM base WHERE len(bad_json) > 0
  UNION ALL
  SELECT src, line, cid, 'capture_id', 'required: a non-empty string'
  FROM base WHERE cid IS NULL OR trim(cid) = ''
  UNION ALL
  SELECT src, line, cid, 'capture_id', 'duplicate capture_id (first at ' || first_src || ':'
         || first_line || ')'
  FROM (SELECT src, line, cid,
               first_value(src) OVER w AS first_src, first_value(line) OVER w AS first_line,
               row_number() OVER w AS k
        FROM base WHERE cid IS NOT NULL AND trim(cid) <> ''
        WINDOW w AS (PARTITION BY cid ORDER BY src, line))
  WHERE k > 1
  UNION ALL
  SELECT src, line, cid, 'captured_at', 'required: an ISO 8601 timestamp, got '
         || coalesce(CAST(captured_at AS VARCHAR), 'nothing')
  FROM base
  WHERE json_type(captured_at) IS DISTINCT FROM 'VARCHAR'
     OR TRY_CAST(json_extract_string(captured_at, '$') AS TIMESTAMPTZ) IS NULL
  UNION ALL
  SELECT src, line, cid, 'stage', 'must be one of ' || array_to_string($stages, ', ')
         || ', got ' || coalesce(CAST(stage AS VARCHAR), 'nothing')
  FROM base
  WHERE json_type(stage) IS DISTINCT FROM 'VARCHAR' OR NOT list_contains($stages, json_extract_string(stage, '$'))
  UNION ALL
  SELECT src, line, cid, 'response', 'required: a JSON object (the RCA response)'
  FROM base WHERE response_type IS DISTINCT FROM 'OBJECT' AND NOT list_contains(bad_json, 'response')
  UNION ALL
  SELECT src, line, cid, 'response.outcome', 'must be one of ' || array_to_string($outcomes, ', ')
  FROM base
  WHERE response_type = 'OBJECT'
    AND (json_type(r_outcome) IS DISTINCT FROM 'VARCHAR'
         OR NOT list_contains($outcomes, json_extract_string(r_outcome, '$')))
  UNION ALL
  SELECT src, line, cid, 'response.root_cause', 'must be a JSON object'
  FROM base WHERE json_type(r_rc) NOT IN ('OBJECT', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'response.root_cause.family', 'must be a string or null'
  FROM base WHERE json_type(r_rc, '$.family') NOT IN ('VARCHAR', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'response.root_cause.confidence',
         'must be one of ' || array_to_string($confidences, ', ')
  FROM base
  WHERE json_type(r_rc, '$.confidence') IS NOT NULL
    AND NOT coalesce(list_contains($confidences, json_extract_string(r_rc, '$.confidence')), false)
  UNION ALL
  SELECT src, line, cid, 'response.root_cause.evidence_ids', 'must be a list of strings'
  FROM base WHERE json_type(r_rc, '$.evidence_ids') NOT IN ('ARRAY', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'response.novel', 'must be true or false'
  FROM base WHERE json_type(r_novel) NOT IN ('BOOLEAN', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'response.' || k, 'must be a list'
  FROM (SELECT src, line, cid, unnest(['evidence', 'hypotheses', 'claims']) AS k,
               unnest([json_type(r_evidence), json_type(r_hypotheses), json_type(r_claims)]) AS t
        FROM base WHERE response_type = 'OBJECT')
  WHERE t NOT IN ('ARRAY', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'response.hypotheses[' || i || '].family', 'required: a string'
  FROM hypotheses WHERE json_type(h, '$.family') IS DISTINCT FROM 'VARCHAR'
  UNION ALL
  SELECT src, line, cid, 'response.evidence[' || i || '].origin',
         'must be one of ' || array_to_string($origins, ', ')
  FROM evidence
  WHERE json_type(e, '$.origin') IS DISTINCT FROM 'VARCHAR'
     OR NOT list_contains($origins, json_extract_string(e, '$.origin'))
  UNION ALL
  SELECT src, line, cid, 'response.evidence[' || i || '].' || k, 'must be true or false'
  FROM (SELECT src, line, cid, i, e, unnest(['usable']) AS k FROM evidence)
  WHERE json_type(e, '$.' || k) NOT IN ('BOOLEAN', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'response.evidence[' || i || '].supports', 'must be a list of strings'
  FROM evidence WHERE json_type(e, '$.supports') NOT IN ('ARRAY', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'response.claims[' || i || '].material', 'must be true or false'
  FROM claims WHERE json_type(c, '$.material') NOT IN ('BOOLEAN', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'response.claims[' || i || '].evidence_ids', 'must be a list of strings'
  FROM claims WHERE json_type(c, '$.evidence_ids') NOT IN ('ARRAY', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'harness', 'required: a JSON object (the harness result)'
  FROM base WHERE json_type(harness) IS DISTINCT FROM 'OBJECT' AND NOT list_contains(bad_json, 'harness')
  UNION ALL
  SELECT src, line, cid, 'harness.status',
         'must be one of ' || array_to_string($harness_statuses, ', ')
  FROM base
  WHERE json_type(harness) = 'OBJECT'
    AND (json_type(harness, '$.status') IS DISTINCT FROM 'VARCHAR'
         OR NOT list_contains($harness_statuses, json_extract_string(harness, '$.status')))
  UNION ALL
  SELECT src, line, cid, 'harness.analysis_hash', 'required: "sha256:" followed by 64 hex digits'
  FROM base
  WHERE json_type(harness) = 'OBJECT'
    AND NOT coalesce(regexp_full_match(json_extract_string(harness, '$.analysis_hash'), $hash_pattern), false)
  UNION ALL
  SELECT src, line, cid, 'labels', 'must be a JSON object or null'
  FROM base WHERE json_type(labels) NOT IN ('OBJECT', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'labels.case_type', 'must be one of ' || array_to_string($case_types, ', ')
  FROM base
  WHERE json_type(labels, '$.case_type') NOT IN ('NULL')
    AND NOT coalesce(list_contains($case_types, json_extract_string(labels, '$.case_type')), false)
  UNION ALL
  SELECT src, line, cid, 'labels.expected_outcome',
         'must be one of ' || array_to_string($expected_outcomes, ', ')
  FROM base
  WHERE json_type(labels, '$.expected_outcome') NOT IN ('NULL')
    AND NOT coalesce(list_contains($expected_outcomes, json_extract_string(labels, '$.expected_outcome')), false)
  UNION ALL
  SELECT src, line, cid, 'labels.expected_family', 'must be a string or null'
  FROM base WHERE json_type(labels, '$.expected_family') NOT IN ('VARCHAR', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'labels.relevant_evidence_ids', 'must be a list of strings or null'
  FROM base WHERE json_type(labels, '$.relevant_evidence_ids') NOT IN ('ARRAY', 'NULL')
  UNION ALL
  SELECT src, line, cid, k, 'must be a list or null'
  FROM (SELECT src, line, cid, unnest(['tool_executions', 'knowledge_activations',
                                       'review_ids']) AS k,
               unnest([json_type(tool_executions), json_type(knowledge_activations),
                       json_type(review_ids)]) AS t
        FROM base)
  WHERE t NOT IN ('ARRAY', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'tool_executions[' || i || '].destructive',
         'required: true or false'
  FROM tools WHERE json_type(t, '$.destructive') IS DISTINCT FROM 'BOOLEAN'
  UNION ALL
  SELECT src, line, cid, 'knowledge_activations[' || i || '].admissible',
         'required: true or false'
  FROM activations WHERE json_type(a, '$.admissible') IS DISTINCT FROM 'BOOLEAN'
  UNION ALL
  SELECT src, line, cid, 'knowledge_activations[' || i || '].succeeded', 'must be true or false'
  FROM activations WHERE json_type(a, '$.succeeded') NOT IN ('BOOLEAN', 'NULL')
  UNION ALL
  SELECT src, line, cid, 'knowledge_activations[' || i || '].latency_seconds',
         'must be a number >= 0 or null'
  FROM activations
  WHERE json_type(a, '$.latency_seconds') NOT IN ('NULL', 'UBIGINT', 'BIGINT', 'DOUBLE')
     OR TRY_CAST(json_extract_string(a, '$.latency_seconds') AS DOUBLE) < 0
  UNION ALL
  SELECT src, line, cid, 'outage_test', 'must be a string (the dependency taken down) or null'
  FROM base WHERE json_type(outage_test) NOT IN ('VARCHAR', 'NULL')
)
SELECT src, line, cid AS capture_id, field, message FROM problems
ORDER BY src, line, field;
