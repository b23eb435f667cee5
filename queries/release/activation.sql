-- Knowledge activations of the measured captures: one row per activation.
-- reads: release_capture (capture.sql: knowledge_activations, parsed by capture_scan.sql;
--   admissible, latency_seconds and succeeded are still JSON text there, of the types
--   validation requires)
-- writes: release_activation (a view) (capture_id, knowledge_id, admissible,
--   latency_seconds, succeeded, outage_test) -- succeeded defaults to true; outage_test is
--   the capture's marker (the dependency deliberately taken down, lower-cased; NULL for
--   ordinary traffic).
CREATE OR REPLACE TEMP VIEW release_activation AS
SELECT capture_id, a.knowledge_id, a.admissible = 'true' AS admissible,
       from_json(a.latency_seconds, '"DOUBLE"') AS latency_seconds,
       coalesce(a.succeeded = 'true', true) AS succeeded, outage_test
FROM (SELECT capture_id, outage_test, unnest(knowledge_activations) AS a
      FROM release_capture);
