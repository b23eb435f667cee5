-- The one pass over the capture input: decides, per capture, whether it certainly passes
-- validation (`ok`) and, for the captures of the measured window, what it says.
-- reads: capture_text (input_jsonl.sql / input_columns.sql), review_label (the operator
--   reviews given to `release metrics --reviews`, possibly none)
-- params: $start, $end (the window, half-open: start <= captured_at < end), $stage (NULL = all
--   stages), $no_family (root-cause family values that mean "no cause named"), and the name
--   lists of validate_captures.sql: $stages, $outcomes, $confidences, $origins,
--   $harness_statuses, $hash_pattern, $case_types, $expected_outcomes, $timestamp_pattern
-- writes: capture_row -- one row per input row:
--   src, line, cid (capture_id when it is a JSON string);
--   ok: true only when every field rule of validate_captures.sql certainly holds; false when
--     one may not (a problem, or a shape this pass cannot tell apart from one, e.g. a list
--     that is absent or of the wrong type, a root_cause without a confidence). validate_
--     captures.sql checks the rows with ok = false field by field and decides;
--   the capture_input columns (as JSON) and bad_json (the nested columns whose text is not
--     JSON), kept only for rows with ok = false (for that check);
--   measured: the row is in the window (and the stage), so release_capture (capture.sql)
--     takes it unless validation finds a problem; outside: its captured_at (or stage)
--     certainly puts it outside (false when unknown, e.g. a captured_at that is not a
--     timestamp: an invalid row of unknown time counts as in the window);
--   the release_capture columns (see capture.sql), for measured rows:
--     case_type / expected_family: the capture's own labels, else those of the latest review
--     (by reviewed_at, then review_id) of the same analysis_hash; families are compared
--     case-insensitively (lower-cased, trimmed); a root-cause family of null / "" / "none" /
--     "unknown" / "n/a" means no cause was named (as in the contract); rc_evidence_ids: ids
--     the root cause cites; cited_ids: ids cited by the root cause or by a material claim
--     (distinct); hyp_families: hypothesis families in ranked order; evidence,
--     tool_executions, knowledge_activations: the capture's lists as parsed here (their
--     flags still JSON text, evidence supports a list of strings; evidence.sql,
--     tool_execution.sql and activation.sql type them);
--   knowledge_text, trace_text (the capture/2 columns) and cd_text (the response's
--     confidence_diagnostics), as text, on every row: validate_trace.sql checks them (the
--     `ok` screen does not cover them) and trace.sql parses them for the measured rows.
-- How: one scan of capture_text; each nested column's text is parsed ONCE, by one from_json (NULL for text that is not
--   JSON: the row is then not ok, and bad_json names the column) whose schema types what the
--   metrics read and keeps as JSON text the leaves whose JSON type a rule checks (a JSON text
--   leaf tells its type by its first character: `"` string, `[` list, `t`/`f` boolean, a
--   digit a non-negative number (checked as text: a JSON value's [1] would index it);
--   from_json gives NULL for a missing key or a JSON null, a struct of NULLs for a value
--   that is not an object, NULL for a list that is not a list). The id and family lists the
--   metrics read (root-cause and claim evidence_ids, evidence supports), which a rule
--   requires to be lists or null, are typed as lists of strings, parsed in the same pass:
--   from_json gives NULL there for null, a missing key or any other type alike, so a NULL
--   one makes the row not ok (validate_captures.sql tells them apart).
--   A value typed VARCHAR is checked against a name list: a JSON value that is not a string
--   becomes text that is in no list (the lists hold lower-case words; a test keeps them so).
--   What this pass cannot decide cheaply makes the row not ok, never ok: `ok` has no false
--   positives, so validate_captures.sql sees every row that may have a problem.
CREATE OR REPLACE TEMP TABLE capture_row AS
WITH latest_review AS (
  SELECT analysis_hash, case_type, expected_family
  FROM review_label
  QUALIFY row_number() OVER (PARTITION BY analysis_hash
                             ORDER BY reviewed_at DESC, review_id DESC) = 1
),
parsed AS (
  SELECT i.*,
         CASE WHEN starts_with(i.capture_id, '"')
              THEN json_extract_string(i.capture_id, '$') END                AS cid,
         -- the timestamp rule of rcaeval/release/_time.py: the pattern first (DuckDB's cast
         -- alone accepts a 5-digit year or a +25:00 offset), upper-cased (RFC 3339 allows a
         -- lower-case t and z), within the years 1..9999 in UTC
         CASE WHEN starts_with(i.captured_at, '"')
                   AND regexp_full_match(json_extract_string(i.captured_at, '$'), $timestamp_pattern)
              THEN TRY_CAST(upper(json_extract_string(i.captured_at, '$')) AS TIMESTAMPTZ) END AS at_any,
         CASE WHEN starts_with(i.stage, '"') THEN json_extract_string(i.stage, '$') END AS stage_s,
         try(from_json(i.response, '{
           "outcome": "VARCHAR", "novel": "JSON",
           "root_cause": {"family": "JSON", "confidence": "VARCHAR",
                          "evidence_ids": "VARCHAR[]"},
           "hypotheses": [{"family": "JSON", "score": "JSON"}],
           "claims": [{"material": "JSON", "evidence_ids": "VARCHAR[]"}],
           "evidence": [{"id": "VARCHAR", "source": "VARCHAR", "source_group": "VARCHAR",
                         "origin": "VARCHAR", "usable": "JSON",
                         "dispositive_signature": "VARCHAR", "supports": "VARCHAR[]"}],
           "confidence_diagnostics": "JSON"
         }')) AS r,
         try(from_json(i.labels, '{"case_type": "VARCHAR", "expected_outcome": "VARCHAR",
                               "expected_family": "JSON",
                               "relevant_evidence_ids": "JSON"}')) AS lab,
         try(from_json(i.harness, '{"analysis_hash": "VARCHAR", "status": "VARCHAR"}')) AS h,
         try(from_json(i.tool_executions,
           '[{"tool": "VARCHAR", "destructive": "JSON", "probe_template_id": "VARCHAR"}]'))
           AS tools,
         try(from_json(i.knowledge_activations,
           '[{"knowledge_id": "VARCHAR", "admissible": "JSON", "latency_seconds": "JSON",
              "succeeded": "JSON"}]')) AS activations
  FROM capture_text i
),
timed AS (
  SELECT * EXCLUDE (at_any),
         CASE WHEN at_any BETWEEN TIMESTAMPTZ '0001-01-01 00:00:00+00'
                              AND TIMESTAMPTZ '9999-12-31 23:59:59.999999+00' THEN at_any END AS at
  FROM parsed
),
screened AS (
  SELECT p.*,
    -- scalar columns
    coalesce(trim(p.cid) <> '', false)
    AND p.at IS NOT NULL
    AND coalesce(list_contains($stages, p.stage_s), false)
    AND (p.outage_test IS NULL OR p.outage_test = 'null' OR starts_with(p.outage_test, '"'))
    AND (p.review_ids IS NULL OR p.review_ids = 'null'
         OR (starts_with(p.review_ids, '[') AND TRY_CAST(p.review_ids AS JSON) IS NOT NULL))
    -- response: an outcome from the list implies an object
    AND coalesce(list_contains($outcomes, p.r.outcome), false)
    AND coalesce(p.r.novel IN ('true', 'false'), true)
    AND (p.r.root_cause IS NULL
         OR (coalesce(list_contains($confidences, p.r.root_cause.confidence), false)
             AND coalesce(starts_with(p.r.root_cause.family, '"'), true)
             AND p.r.root_cause.evidence_ids IS NOT NULL))
    AND CASE WHEN p.r IS NULL THEN false
             WHEN p.r.evidence IS NOT NULL AND p.r.hypotheses IS NOT NULL
                  AND p.r.claims IS NOT NULL THEN true
             ELSE len(list_filter(json_type(p.response, ['$.evidence', '$.hypotheses', '$.claims']),
                                  lambda t: t NOT IN ('ARRAY', 'NULL'))) = 0 END
    AND len(list_filter(p.r.hypotheses,
          lambda x: NOT coalesce(starts_with(x.family, '"'), false)
                    OR NOT coalesce(regexp_full_match(CAST(x.score AS VARCHAR),
                                                      '[0-9][0-9.eE+-]{0,14}'), true)
                    OR NOT coalesce(isfinite(TRY_CAST(CAST(x.score AS VARCHAR) AS DOUBLE)),
                                    true))) = 0
    AND len(list_filter(p.r.evidence, lambda e:
          NOT coalesce(list_contains($origins, e.origin), false)
          OR NOT coalesce(e.usable IN ('true', 'false'), true)
          OR e.supports IS NULL)) = 0
    AND len(list_filter(p.r.claims, lambda c:
          NOT coalesce(c.material IN ('true', 'false'), true)
          OR c.evidence_ids IS NULL)) = 0
    -- harness: a status from the list implies an object
    AND coalesce(list_contains($harness_statuses, p.h.status), false)
    AND coalesce(regexp_full_match(p.h.analysis_hash, $hash_pattern), false)
    -- labels
    AND CASE WHEN p.lab IS NULL THEN p.labels IS NULL OR p.labels = 'null' ELSE
            (coalesce(list_contains($case_types, p.lab.case_type), true)
             AND coalesce(list_contains($expected_outcomes, p.lab.expected_outcome), true)
             AND coalesce(starts_with(p.lab.expected_family, '"'), true)
             AND coalesce(starts_with(p.lab.relevant_evidence_ids, '['), true)
             AND CASE WHEN p.lab.case_type IS NULL AND p.lab.expected_outcome IS NULL
                           AND p.lab.expected_family IS NULL
                           AND p.lab.relevant_evidence_ids IS NULL
                      THEN json_type(p.labels) = 'OBJECT' ELSE true END) END
    -- tool executions and knowledge activations
    AND (p.tools IS NOT NULL OR p.tool_executions IS NULL OR p.tool_executions = 'null')
    AND len(list_filter(p.tools,
          lambda t: NOT coalesce(t.destructive IN ('true', 'false'), false))) = 0
    AND (p.activations IS NOT NULL OR p.knowledge_activations IS NULL
         OR p.knowledge_activations = 'null')
    AND len(list_filter(p.activations, lambda a:
          NOT coalesce(a.admissible IN ('true', 'false'), false)
          OR NOT coalesce(a.succeeded IN ('true', 'false'), true)
          OR NOT coalesce(regexp_full_match(CAST(a.latency_seconds AS VARCHAR),
                                            '[0-9][0-9.eE+-]{0,14}'), true)
          -- 1e999 matches the pattern but is infinite: never a latency (docs/release.md)
          OR NOT coalesce(isfinite(TRY_CAST(CAST(a.latency_seconds AS VARCHAR) AS DOUBLE)),
                          true))) = 0
    AS ok,
    p.at >= $start AND p.at < $end AND ($stage IS NULL OR p.stage_s = $stage) AS in_window
  FROM timed p
),
kept AS (
  SELECT s.src, s.line, s.cid, coalesce(s.ok, false) AS ok,
         coalesce(s.in_window, false) AS measured,
         coalesce(NOT s.in_window, false) AS outside,
         CASE WHEN s.ok THEN NULL ELSE s.capture_id END            AS capture_id,
         CASE WHEN s.ok THEN NULL ELSE s.captured_at END           AS captured_at,
         CASE WHEN s.ok THEN NULL ELSE s.stage END                 AS stage,
         CASE WHEN s.ok THEN NULL ELSE TRY_CAST(s.response AS JSON) END        AS response,
         CASE WHEN s.ok THEN NULL ELSE TRY_CAST(s.harness AS JSON) END         AS harness,
         CASE WHEN s.ok THEN NULL ELSE TRY_CAST(s.labels AS JSON) END          AS labels,
         CASE WHEN s.ok THEN NULL ELSE TRY_CAST(s.tool_executions AS JSON) END AS tool_executions,
         CASE WHEN s.ok THEN NULL
              ELSE TRY_CAST(s.knowledge_activations AS JSON) END  AS knowledge_activations,
         CASE WHEN s.ok THEN NULL ELSE s.outage_test END           AS outage_test_json,
         CASE WHEN s.ok THEN NULL ELSE TRY_CAST(s.review_ids AS JSON) END      AS review_ids,
         CASE WHEN s.ok THEN NULL ELSE list_filter([
           CASE WHEN s.response IS NOT NULL AND TRY_CAST(s.response AS JSON) IS NULL
                THEN 'response' END,
           CASE WHEN s.harness IS NOT NULL AND TRY_CAST(s.harness AS JSON) IS NULL
                THEN 'harness' END,
           CASE WHEN s.labels IS NOT NULL AND TRY_CAST(s.labels AS JSON) IS NULL THEN 'labels' END,
           CASE WHEN s.tool_executions IS NOT NULL AND TRY_CAST(s.tool_executions AS JSON) IS NULL
                THEN 'tool_executions' END,
           CASE WHEN s.knowledge_activations IS NOT NULL
                     AND TRY_CAST(s.knowledge_activations AS JSON) IS NULL
                THEN 'knowledge_activations' END,
           CASE WHEN s.review_ids IS NOT NULL AND TRY_CAST(s.review_ids AS JSON) IS NULL
                THEN 'review_ids' END
         ], lambda x: x IS NOT NULL) END                           AS bad_json,
         CASE WHEN s.in_window THEN s.at END                       AS at,
         CASE WHEN s.in_window THEN s.stage_s END                  AS stage_s,
         CASE WHEN s.in_window THEN s.population END               AS population,
         CASE WHEN s.in_window THEN s.incident_id END              AS incident_id,
         CASE WHEN s.in_window THEN s.outage_test END              AS outage_test,
         CASE WHEN s.in_window THEN s.r END                        AS r,
         CASE WHEN s.in_window THEN s.lab END                      AS lab,
         CASE WHEN s.in_window THEN s.h END                        AS h,
         CASE WHEN s.in_window THEN s.tools END                    AS tools,
         CASE WHEN s.in_window THEN s.activations END              AS activations,
         -- capture/2 (validate_trace.sql checks them on every row, trace.sql reads them)
         s.knowledge                                               AS knowledge_text,
         s.trace                                                   AS trace_text,
         CAST(s.r.confidence_diagnostics AS VARCHAR)               AS cd_text
  FROM screened s
),
fam AS (
  SELECT k.*, lower(trim(json_extract_string(k.r.root_cause.family, '$'))) AS rc_family_raw,
         coalesce(k.r.root_cause.evidence_ids, []) AS rc_ids
  FROM kept k
)
SELECT f.src, f.line, f.cid, f.ok, f.measured, f.outside,
       f.capture_id AS capture_id_json, f.captured_at AS captured_at_json,
       f.stage AS stage_json, f.response, f.harness, f.labels, f.tool_executions AS tools_json,
       f.knowledge_activations AS activations_json, f.outage_test_json, f.review_ids,
       f.bad_json,
       f.cid                                                          AS capture_id,
       f.at                                                           AS captured_at,
       f.stage_s                                                      AS stage,
       json_extract_string(f.population, '$')                         AS population,
       json_extract_string(f.incident_id, '$')                        AS incident_id,
       f.h.analysis_hash                                              AS analysis_hash,
       f.h.status                                                     AS harness_status,
       coalesce(f.lab.case_type, r.case_type)                         AS case_type,
       -- an expected family of "" (or blanks) is none, as in a review: the review's applies
       lower(trim(coalesce(nullif(trim(json_extract_string(f.lab.expected_family, '$')), ''),
                           r.expected_family)))                       AS expected_family,
       f.lab.expected_outcome                                         AS expected_outcome,
       from_json(f.lab.relevant_evidence_ids, '["VARCHAR"]')          AS relevant_evidence_ids,
       CASE WHEN f.rc_family_raw IS NULL OR list_contains($no_family, f.rc_family_raw)
            THEN NULL ELSE f.rc_family_raw END                        AS rc_family,
       coalesce(f.r.root_cause.confidence, 'none')                    AS rc_confidence,
       f.r.outcome                                                    AS outcome,
       coalesce(f.r.novel = 'true', false)                            AS novel,
       list_transform(f.r.hypotheses,
                      lambda x: lower(trim(json_extract_string(x.family, '$')))) AS hyp_families,
       f.rc_ids                                                       AS rc_evidence_ids,
       list_distinct(list_concat(f.rc_ids, coalesce(flatten(list_transform(
           list_filter(f.r.claims, lambda c: coalesce(c.material = 'true', false)),
           lambda c: coalesce(c.evidence_ids, []))), [])))
                                                                      AS cited_ids,
       f.r.evidence                                                   AS evidence,
       lower(trim(json_extract_string(f.outage_test, '$')))           AS outage_test,
       f.tools                                                        AS tool_executions,
       f.activations                                                  AS knowledge_activations,
       f.knowledge_text, f.trace_text, f.cd_text
FROM fam f
LEFT JOIN latest_review r ON r.analysis_hash = f.h.analysis_hash;
