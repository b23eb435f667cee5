-- metric: capture_typedb_outage_runtime_activation_success
-- kind: bool
-- reads: release_capture, release_activation
-- rows: captures in the release window marked outage_test = 'typedb' (TypeDB deliberately
--   down); value = true when there is at least one, and every one of them recorded at least
--   one knowledge activation and all their activations succeeded; NULL (not measured) when
--   the window holds no TypeDB outage test; denominator = the number of outage-test captures
WITH outage AS (
  SELECT c.capture_id,
         count(a.capture_id) AS activations,
         coalesce(bool_and(a.succeeded), false) AS all_succeeded
  FROM release_capture c LEFT JOIN release_activation a USING (capture_id)
  WHERE c.outage_test = 'typedb'
  GROUP BY c.capture_id
)
SELECT CASE WHEN count(*) = 0 THEN NULL
            ELSE bool_and(activations > 0 AND all_succeeded) END AS value,
       count(*) AS denominator
FROM outage
