-- Whether the artifact being recorded is already stored: decides `record`'s "new" vs
-- "already recorded" (recording is idempotent per window, stage and artifact checksum).
-- reads: window_import (the one window row being recorded, registered by record_window)
SELECT count(*)
FROM release_windows w
JOIN window_import i USING (window_start, window_end, stage, artifact_sha256);
