-- The measured population, for the provenance of a metrics artifact.
-- reads: release_capture (capture.sql), capture_row (capture_scan.sql), capture_problem
-- writes: rows (dimension, key, n):
--   captures/in_window: valid captures measured; captures/read: rows read from the inputs;
--   captures/invalid: rows with a validation problem (never measured);
--   captures/invalid_in_window: those of them in the window (and stage) or of unknown time
--   (what the gate's invalid_captures counts; invalid rows certainly outside do not block);
--   captures/outside_window: valid rows outside the window or the requested stage;
--   case_type/<type>: measured captures by effective case type ('unlabelled' when neither
--   the capture nor a review labels it); stage/<stage>; outage_test/<dependency>.
WITH invalid AS (SELECT count(DISTINCT (src, line)) AS n FROM capture_problem),
invalid_in AS (
  SELECT count(DISTINCT (p.src, p.line)) AS n
  FROM capture_problem p JOIN capture_row c ON c.src = p.src AND c.line = p.line
  WHERE NOT c.outside
),
rd AS (SELECT count(*) AS n FROM capture_row),
win AS (SELECT count(*) AS n FROM release_capture)
SELECT 'captures' AS dimension, 'read' AS key, (SELECT n FROM rd) AS n
UNION ALL SELECT 'captures', 'invalid', (SELECT n FROM invalid)
UNION ALL SELECT 'captures', 'invalid_in_window', (SELECT n FROM invalid_in)
UNION ALL SELECT 'captures', 'in_window', (SELECT n FROM win)
UNION ALL SELECT 'captures', 'outside_window',
                 (SELECT n FROM rd) - (SELECT n FROM invalid) - (SELECT n FROM win)
UNION ALL
SELECT 'case_type', coalesce(case_type, 'unlabelled'), count(*) FROM release_capture GROUP BY 2
UNION ALL
SELECT 'stage', stage, count(*) FROM release_capture GROUP BY 2
UNION ALL
SELECT 'outage_test', outage_test, count(*) FROM release_capture
WHERE outage_test IS NOT NULL GROUP BY 2
ORDER BY 1, 2;
