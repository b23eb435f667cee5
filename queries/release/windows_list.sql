-- The stored release windows, one row per (window, stage): the latest recorded measurement
-- (by computed_at, then recorded_at) and how many measurements the window has. Decides what
-- `rcaeval release windows` lists and rcaeval.release.stored_windows returns, oldest first.
-- Parameters: $stage (VARCHAR or NULL for every stage), $include_synthetic (BOOLEAN).
WITH ranked AS (
    SELECT *,
           row_number() OVER (PARTITION BY window_start, window_end, stage
                              ORDER BY computed_at DESC, recorded_at DESC,
                                       artifact_sha256) AS rn,
           count(*) OVER (PARTITION BY window_start, window_end, stage) AS measurements
    FROM release_windows
    WHERE ($stage IS NULL OR stage = $stage)
      AND ($include_synthetic OR NOT synthetic)
)
SELECT window_start, window_end, window_spec, stage, gate_passed, gate_passed_strict,
       failed, failed_strict, captures_in_window, captures_invalid, reviews, synthetic,
       measurements, computed_at, recorded_at, package_version, git_revision,
       metric_queries_sha256, artifact_sha256, artifact_path
FROM ranked
WHERE rn = 1
ORDER BY window_start, window_end, stage;
