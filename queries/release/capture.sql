-- The release window: decides which valid captures are measured and what each one says.
-- reads: capture_input, capture_problem (validate_captures.sql), review_label (the operator
--   reviews given to `release metrics --reviews`, possibly none)
-- params: $start, $end (the window, half-open: start <= captured_at < end), $stage (NULL = all
--   stages), $no_family (root-cause family values that mean "no cause named")
-- writes: release_capture -- one row per valid capture in the window:
--   case_type / expected_family: the capture's own labels, else those of the latest review
--     (by reviewed_at, then review_id) of the same analysis_hash;
--   families are compared case-insensitively (lower-cased, trimmed); a root-cause family of
--     null / "" / "none" / "unknown" / "n/a" means no cause was named (as in the contract);
--   rc_evidence_ids: ids the root cause cites; cited_ids: ids cited by the root cause or by
--     a material claim (distinct); hyp_families: hypothesis families in ranked order;
--   tool_executions / knowledge_activations: the capture's lists, typed (unnested by
--     tool_execution.sql and activation.sql).
-- How: one scan of capture_input (valid rows only: an anti-join with the few problem rows),
--   each nested column parsed once; nothing joins back to the input.
CREATE OR REPLACE TEMP TABLE release_capture AS
WITH latest_review AS (
  SELECT analysis_hash, case_type, expected_family
  FROM review_label
  QUALIFY row_number() OVER (PARTITION BY analysis_hash
                             ORDER BY reviewed_at DESC, review_id DESC) = 1
),
valid AS (
  SELECT i.* EXCLUDE (review_ids),
         TRY_CAST(json_extract_string(i.captured_at, '$') AS TIMESTAMPTZ) AS at
  FROM capture_input i ANTI JOIN capture_problem p ON p.src = i.src AND p.line = i.line
),
win AS (
  SELECT v.* EXCLUDE (response, tool_executions, knowledge_activations),
         from_json(v.response, '{
           "root_cause": {"family": "VARCHAR", "confidence": "VARCHAR",
                          "evidence_ids": ["VARCHAR"]},
           "outcome": "VARCHAR", "novel": "BOOLEAN",
           "hypotheses": [{"family": "VARCHAR"}],
           "claims": [{"material": "BOOLEAN", "evidence_ids": ["VARCHAR"]}],
           "evidence": [{"id": "VARCHAR", "source": "VARCHAR", "source_group": "VARCHAR",
                         "origin": "VARCHAR", "usable": "BOOLEAN",
                         "dispositive_signature": "VARCHAR", "supports": ["VARCHAR"]}]
         }') AS r,
         from_json(v.labels, '{"case_type": "VARCHAR", "expected_family": "VARCHAR",
                               "expected_outcome": "VARCHAR",
                               "relevant_evidence_ids": ["VARCHAR"]}') AS lab,
         from_json(v.harness, '{"analysis_hash": "VARCHAR", "status": "VARCHAR"}') AS h,
         from_json(v.tool_executions,
           '[{"tool": "VARCHAR", "destructive": "BOOLEAN", "probe_template_id": "VARCHAR"}]')
           AS tools,
         from_json(v.knowledge_activations,
           '[{"knowledge_id": "VARCHAR", "admissible": "BOOLEAN", "latency_seconds": "DOUBLE",
              "succeeded": "BOOLEAN"}]') AS activations
  FROM valid v
  WHERE v.at >= $start AND v.at < $end
    AND ($stage IS NULL OR json_extract_string(v.stage, '$') = $stage)
),
fam AS (
  SELECT w.*, lower(trim(w.r.root_cause.family)) AS rc_family_raw,
         coalesce(w.r.root_cause.evidence_ids, []) AS rc_ids
  FROM win w
)
SELECT f.src, f.line,
       json_extract_string(f.capture_id, '$')                         AS capture_id,
       f.at                                                           AS captured_at,
       json_extract_string(f.stage, '$')                              AS stage,
       json_extract_string(f.population, '$')                         AS population,
       json_extract_string(f.incident_id, '$')                        AS incident_id,
       f.h.analysis_hash                                              AS analysis_hash,
       f.h.status                                                     AS harness_status,
       coalesce(f.lab.case_type, r.case_type)                         AS case_type,
       lower(trim(coalesce(f.lab.expected_family, r.expected_family))) AS expected_family,
       f.lab.expected_outcome                                         AS expected_outcome,
       f.lab.relevant_evidence_ids                                    AS relevant_evidence_ids,
       CASE WHEN f.rc_family_raw IS NULL OR list_contains($no_family, f.rc_family_raw)
            THEN NULL ELSE f.rc_family_raw END                        AS rc_family,
       coalesce(f.r.root_cause.confidence, 'none')                    AS rc_confidence,
       f.r.outcome                                                    AS outcome,
       coalesce(f.r.novel, false)                                     AS novel,
       list_transform(f.r.hypotheses, lambda x: lower(trim(x.family))) AS hyp_families,
       f.rc_ids                                                       AS rc_evidence_ids,
       list_distinct(list_concat(f.rc_ids, coalesce(flatten(list_transform(
           list_filter(f.r.claims, lambda c: coalesce(c.material, false)),
           lambda c: coalesce(c.evidence_ids, []))), [])))            AS cited_ids,
       f.r.evidence                                                   AS evidence,
       lower(trim(json_extract_string(f.outage_test, '$')))           AS outage_test,
       f.tools                                                        AS tool_executions,
       f.activations                                                  AS knowledge_activations
FROM fam f
LEFT JOIN latest_review r ON r.analysis_hash = f.h.analysis_hash;
