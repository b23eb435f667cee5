-- The measured population, for the provenance of a metrics artifact.
-- reads: release_capture (capture.sql), capture_row (capture_scan.sql), capture_problem
-- writes: rows (dimension, key, n):
--   captures/in_window: valid captures measured; captures/read: rows read from the inputs;
--   captures/invalid: rows with a validation problem (never measured);
--   captures/outside_window: valid rows outside the window or the requested stage;
--   case_type/<type>: measured captures by effective case type ('unlabelled' when neither
--   the capture nor a review labels it); stage/<stage>; outage_test/<dependency>.
WITH invalid AS (SELECT count(DISTINCT (src, line)) AS n FROM capture_problem),
rd AS (SELECT count(*) AS n FROM capture_row),
win AS (SELECT count(*) AS n FROM release_capture)
SELECT 'captures' AS dimension, 'read' AS key, (SELECT n FROM rd) AS n
UNION ALL SELECT 'captures', 'invalid', (SELECT n FROM invalid)
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
