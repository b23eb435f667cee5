-- The release-gate trend: each gate metric over the stored windows of one stage that start
-- before the reported window ends (earlier, overlapping and contained windows: nothing that
-- began before the reported window closed is dropped; later windows are listed by
-- release_trend_left_out.sql), with its threshold (what the release-gate notebook's trend
-- chart draws), ordered by window start, then end. Per (window, stage) the latest measurement counts (computed_at, then
-- recorded_at); the artifact being reported always counts for its own window, stored or not.
-- reads: release_windows, release_window_metrics (queries/migrations/0012_release_windows.sql);
--   current_window, current_window_metrics (the reported artifact, same shape, registered by
--   rcaeval.charts.release_trend)
-- Parameters: $stage (VARCHAR: the reported artifact's stage), $include_synthetic (BOOLEAN),
--   $metrics (VARCHAR[]: the gate metrics in gate order).
WITH cur AS (
    SELECT window_start, window_end, window_spec, stage, artifact_sha256, synthetic,
           gate_passed, gate_passed_strict, computed_at, recorded_at, true AS is_current
    FROM current_window
),
windows AS (
    SELECT window_start, window_end, window_spec, stage, artifact_sha256, synthetic,
           gate_passed, gate_passed_strict, computed_at, recorded_at, false AS is_current
    FROM release_windows
    WHERE stage = $stage
      AND ($include_synthetic OR NOT synthetic)
      AND artifact_sha256 NOT IN (SELECT artifact_sha256 FROM cur)
      AND window_start < (SELECT coalesce(min(window_end), 'infinity'::TIMESTAMPTZ) FROM cur)
    UNION ALL
    SELECT * FROM cur
),
latest AS (
    SELECT *
    FROM windows
    QUALIFY row_number() OVER (PARTITION BY window_start, window_end, stage
                               ORDER BY is_current DESC, computed_at DESC, recorded_at DESC,
                                        artifact_sha256) = 1
),
metrics AS (
    SELECT * FROM release_window_metrics
    UNION ALL BY NAME
    SELECT * FROM current_window_metrics
)
SELECT l.window_start,
       l.window_end,
       coalesce(l.window_spec,
                strftime(l.window_start, '%Y-%m-%dT%H:%MZ') || '..'
                || strftime(l.window_end, '%Y-%m-%dT%H:%MZ')) AS "window",
       l.stage,
       l.is_current AS current,
       l.gate_passed,
       l.gate_passed_strict,
       m.metric,
       m.kind,
       m.value,
       m.ci_low,
       m.ci_high,
       m.sample_size,
       m.threshold,
       m.threshold_value,
       m.passed,
       m.passed_strict,
       l.artifact_sha256
FROM latest l
JOIN metrics m USING (window_start, window_end, stage, artifact_sha256)
ORDER BY list_position($metrics, m.metric), l.window_start, l.window_end;
