-- Evidence of the measured captures: decides what each evidence artifact counts as.
-- reads: release_capture (capture.sql; evidence as parsed by capture_scan.sql: usable is
--   still JSON text there, of the type validation requires; supports a list of strings)
-- writes: release_evidence (a view: unnested when a metric reads it) (capture_id,
--   rc_family, rc_confidence, rc_evidence_ids -- the capture's root cause, as in capture.sql,
--   so a metric that reads the evidence of some captures filters on them and only those
--   captures' evidence is unnested --, evidence_id, source_group, live, dispositive, supports)
--   live = usable (default true) and origin 'current_run' (historical knowledge is context,
--   never support); source_group = source_group, else source, lower-cased (the independent
--   source group, as the harness counts it); dispositive = a non-empty
--   dispositive_signature; supports = the families it declares, lower-cased.
CREATE OR REPLACE TEMP VIEW release_evidence AS
SELECT capture_id, rc_family, rc_confidence, rc_evidence_ids,
       e.id                                                        AS evidence_id,
       lower(trim(coalesce(e.source_group, e.source)))             AS source_group,
       coalesce(e.usable = 'true', true) AND e.origin = 'current_run' AS live,
       coalesce(trim(e.dispositive_signature), '') <> ''           AS dispositive,
       list_transform(coalesce(e.supports, []), lambda s: lower(trim(s))) AS supports
FROM (SELECT capture_id, rc_family, rc_confidence, rc_evidence_ids, unnest(evidence) AS e
      FROM release_capture);
