-- The stored windows of the reported stage that the release-gate trend does not draw, and
-- why, so nothing is dropped silently: windows that start at or after the reported window's
-- end ("later": the trend runs up to the reported window), and synthetic windows when they
-- are left out. (Earlier measurements of a drawn window are superseded by its latest.)
-- reads: release_windows; current_window (the reported artifact, registered by
--   rcaeval.charts.release_trend_left_out)
-- Parameters: $stage (VARCHAR), $include_synthetic (BOOLEAN).
WITH cur AS (SELECT window_end, artifact_sha256 FROM current_window),
stored AS (
    SELECT window_start, window_end, any_value(window_spec) AS window_spec,
           bool_and(synthetic) AS synthetic
    FROM release_windows
    WHERE stage = $stage AND artifact_sha256 NOT IN (SELECT artifact_sha256 FROM cur)
    GROUP BY window_start, window_end
)
SELECT window_start, window_end,
       coalesce(window_spec,
                strftime(window_start, '%Y-%m-%dT%H:%MZ') || '..'
                || strftime(window_end, '%Y-%m-%dT%H:%MZ')) AS "window",
       CASE WHEN synthetic AND NOT $include_synthetic THEN 'synthetic'
            ELSE 'later than the reported window' END AS reason
FROM stored
WHERE (synthetic AND NOT $include_synthetic)
   OR window_start >= (SELECT coalesce(min(window_end), 'infinity'::TIMESTAMPTZ) FROM cur)
ORDER BY window_start, window_end;
