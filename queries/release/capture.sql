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
--     a material claim (distinct); hyp_families: hypothesis families in ranked order.
CREATE OR REPLACE TEMP TABLE release_capture AS
WITH latest_review AS (
  SELECT analysis_hash, case_type, expected_family
  FROM review_label
  QUALIFY row_number() OVER (PARTITION BY analysis_hash
                             ORDER BY reviewed_at DESC, review_id DESC) = 1
),
valid AS (
  SELECT i.*, TRY_CAST(json_extract_string(i.captured_at, '$') AS TIMESTAMPTZ) AS at
  FROM capture_input i ANTI JOIN capture_problem p ON p.src = i.src AND p.line = i.line
),
fam AS (
  SELECT v.*,
         lower(trim(json_extract_string(v.response, '$.root_cause.family'))) AS rc_family_raw,
         from_json(json_extract(v.response, '$.claims'),
                   '[{"material": "BOOLEAN", "evidence_ids": ["VARCHAR"]}]') AS claim_list
  FROM valid v
  WHERE v.at >= $start AND v.at < $end
    AND ($stage IS NULL OR json_extract_string(v.stage, '$') = $stage)
)
SELECT f.src, f.line,
       json_extract_string(f.capture_id, '$')                                           AS capture_id,
       f.at                                                           AS captured_at,
       json_extract_string(f.stage, '$')                                                AS stage,
       json_extract_string(f.population, '$')                                           AS population,
       json_extract_string(f.incident_id, '$')                                          AS incident_id,
       json_extract_string(f.harness, '$.analysis_hash')                                AS analysis_hash,
       json_extract_string(f.harness, '$.status')                                       AS harness_status,
       coalesce(json_extract_string(f.labels, '$.case_type'), r.case_type)              AS case_type,
       lower(trim(coalesce(json_extract_string(f.labels, '$.expected_family'), r.expected_family)))
                                                                      AS expected_family,
       json_extract_string(f.labels, '$.expected_outcome')                              AS expected_outcome,
       from_json(json_extract(f.labels, '$.relevant_evidence_ids'), '["VARCHAR"]') AS relevant_evidence_ids,
       CASE WHEN f.rc_family_raw IS NULL OR list_contains($no_family, f.rc_family_raw)
            THEN NULL ELSE f.rc_family_raw END                         AS rc_family,
       coalesce(json_extract_string(f.response, '$.root_cause.confidence'), 'none')     AS rc_confidence,
       json_extract_string(f.response, '$.outcome')                                     AS outcome,
       coalesce(CAST(json_extract_string(f.response, '$.novel') AS BOOLEAN), false)     AS novel,
       list_transform(from_json(json_extract(f.response, '$.hypotheses'), '[{"family": "VARCHAR"}]'),
                      lambda h: lower(trim(h.family)))                     AS hyp_families,
       coalesce(from_json(json_extract(f.response, '$.root_cause.evidence_ids'), '["VARCHAR"]'), [])
                                                                      AS rc_evidence_ids,
       list_distinct(list_concat(
         coalesce(from_json(json_extract(f.response, '$.root_cause.evidence_ids'), '["VARCHAR"]'), []),
         coalesce(flatten(list_transform(
           list_filter(f.claim_list, lambda c: coalesce(c.material, false)),
           lambda c: coalesce(c.evidence_ids, []))), [])))                  AS cited_ids,
       lower(trim(json_extract_string(f.outage_test, '$')))                             AS outage_test
FROM fam f
LEFT JOIN latest_review r ON r.analysis_hash = json_extract_string(f.harness, '$.analysis_hash');
