-- The capture/2 relations of the measured captures: decides what the probe, calibration and
-- ordering metrics and the artifact's knowledge provenance read.
-- reads: release_capture (capture.sql: knowledge_text, trace_text, cd_text, validated by
--   validate_trace.sql, so every value here has its declared type)
-- writes: release_knowledge and release_confidence as views (each read by few queries,
--   parsing little), release_trace_observation and release_confidence_breakdown as temp
--   tables: each is read by two or three diagnostic queries, and as views each of those
--   parsed every trace / confidence_diagnostics text again. release_confidence stays a view:
--   its averages add in the scan's order, and a table's rows may come back in another order,
--   changing the last digits of a float sum. Rows with a problem are gone (capture.sql), so
--   a text here is JSON null or an object (validate_trace.sql): from_json of null gives NULL,
--   no second parse to test the type. The relations:
--   release_knowledge (capture_id, package_id, activation_path) -- one row per measured
--     capture (NULLs when it records no knowledge package: a capture/1 row);
--   release_trace_observation (capture_id, snapshot_status, obs_order, collector, plane,
--     probe_template_id, hypothesis, evidence_id, incident_time_relation, supporting,
--     contradicting, plan_step, rc_family, rc_evidence_ids) -- one row per trace-v3
--     observation; collector and plane lower-cased and trimmed (compared case-insensitively,
--     as source groups are), hypothesis and rc_family as families are (lower, trimmed);
--     supporting / contradicting: the distinct lower-cased source groups (never NULL);
--   release_confidence (capture_id, probability, calibrated_probability, rc_family,
--     expected_family, correct) -- one row per measured capture whose response carries
--     confidence_diagnostics.probability (a finite number in [0, 1]); calibrated_probability:
--     its self_check.calibrated_probability when that is a finite number in [0, 1], else
--     NULL; correct: the named root-cause family is the expected one (NULL when no family is
--     named or none is expected).
--   release_confidence_breakdown (capture_id, rc_family, rc_confidence, base_score,
--     final_score, delta_sum, declared_groups, gates, failed_gates) -- one row per measured
--     capture whose response carries confidence_diagnostics: its root cause's confidence
--     label, its base and final score, the sum of its additive adjustments' deltas (0 with
--     none), its independent_source_groups lower-cased, trimmed and distinct (never NULL),
--     and how many confidence gates it lists and how many of them have passed = false.
CREATE OR REPLACE TEMP VIEW release_knowledge AS
SELECT capture_id,
       json_extract_string(knowledge_text, '$.package_id')      AS package_id,
       json_extract_string(knowledge_text, '$.activation_path') AS activation_path
FROM release_capture;

CREATE OR REPLACE TEMP TABLE release_trace_observation AS
WITH snap AS (
  SELECT capture_id, rc_family, rc_evidence_ids,
         from_json(trace_text, '{"status": "VARCHAR", "observations": [{"order": "BIGINT",
           "collector": "VARCHAR", "plane": "VARCHAR", "probe_template_id": "VARCHAR",
           "hypothesis": "VARCHAR", "evidence_id": "VARCHAR",
           "incident_time_relation": "VARCHAR", "supporting_source_groups": "VARCHAR[]",
           "contradicting_source_groups": "VARCHAR[]", "plan_step": "BIGINT"}]}') AS t
  FROM release_capture
  WHERE trace_text IS NOT NULL
),
obs AS (
  SELECT capture_id, rc_family, rc_evidence_ids, t.status AS snapshot_status,
         unnest(t.observations) AS o
  FROM snap
)
SELECT capture_id, snapshot_status, o.order AS obs_order,
       lower(trim(o.collector)) AS collector, lower(trim(o.plane)) AS plane,
       o.probe_template_id, nullif(lower(trim(o.hypothesis)), '') AS hypothesis,
       o.evidence_id, o.incident_time_relation,
       list_distinct(list_transform(coalesce(o.supporting_source_groups, []),
                                    lambda g: lower(trim(g)))) AS supporting,
       list_distinct(list_transform(coalesce(o.contradicting_source_groups, []),
                                    lambda g: lower(trim(g)))) AS contradicting,
       o.plan_step, rc_family, coalesce(rc_evidence_ids, []) AS rc_evidence_ids
FROM obs;

CREATE OR REPLACE TEMP VIEW release_confidence AS
SELECT capture_id, probability,
       CASE WHEN isfinite(calibrated) AND calibrated BETWEEN 0 AND 1 THEN calibrated END
           AS calibrated_probability,
       rc_family, expected_family,
       CASE WHEN rc_family IS NOT NULL AND expected_family IS NOT NULL
            THEN rc_family = expected_family END AS correct
FROM (SELECT capture_id, rc_family, expected_family,
             TRY_CAST(v[1] AS DOUBLE) AS probability, TRY_CAST(v[2] AS DOUBLE) AS calibrated
      FROM (SELECT capture_id, rc_family, expected_family,
                   json_extract(cd_text, ['$.probability', '$.self_check.calibrated_probability'])
                       AS v
            FROM release_capture
            WHERE cd_text IS NOT NULL))
WHERE probability IS NOT NULL AND isfinite(probability) AND probability BETWEEN 0 AND 1;

CREATE OR REPLACE TEMP TABLE release_confidence_breakdown AS
SELECT capture_id, rc_family, rc_confidence, cd.base_score, cd.final_score,
       coalesce(list_sum(list_transform(coalesce(cd.adjustments, []), lambda a: a.delta)), 0)
           AS delta_sum,
       list_distinct(list_filter(list_transform(coalesce(cd.independent_source_groups, []),
                                                lambda g: lower(trim(g))),
                                 lambda g: g IS NOT NULL AND g <> '')) AS declared_groups,
       len(coalesce(cd.gates, [])) AS gates,
       len(list_filter(coalesce(cd.gates, []), lambda g: g.passed = false)) AS failed_gates
FROM (SELECT capture_id, rc_family, rc_confidence,
             from_json(cd_text, '{"base_score": "DOUBLE", "final_score": "DOUBLE",
               "adjustments": [{"delta": "DOUBLE"}],
               "independent_source_groups": ["VARCHAR"],
               "gates": [{"passed": "BOOLEAN"}]}') AS cd
      FROM release_capture
      WHERE cd_text IS NOT NULL)
WHERE cd IS NOT NULL;
