-- Record one measured release window: decides what a (re-)recording writes.
-- reads: window_import (one row), window_metrics_import (one row per gate metric), both
--   registered by rcaeval.release.record_window
-- writes: release_windows, release_window_metrics -- rows whose (window, stage, artifact
--   checksum) is already stored are left as they are (the same artifact recorded again
--   changes nothing, not even recorded_at); another checksum for the same window and stage
--   (a re-measurement) is added beside the earlier one.
INSERT INTO release_windows
SELECT i.* FROM window_import i
WHERE NOT EXISTS (
    SELECT 1 FROM release_windows w
    WHERE w.window_start = i.window_start AND w.window_end = i.window_end
      AND w.stage = i.stage AND w.artifact_sha256 = i.artifact_sha256);

INSERT INTO release_window_metrics
SELECT i.* FROM window_metrics_import i
WHERE NOT EXISTS (
    SELECT 1 FROM release_window_metrics m
    WHERE m.window_start = i.window_start AND m.window_end = i.window_end
      AND m.stage = i.stage AND m.artifact_sha256 = i.artifact_sha256
      AND m.metric = i.metric);
