-- Import operator reviews into the store: decides what a re-import does.
-- reads: review_import (the validated reviews of one file, registered by the importer)
-- writes: release_review -- a new review_id is inserted; a known review_id whose content
--   changed replaces the stored row (the operator edited it); identical re-imports change
--   nothing but imported_at.
INSERT OR REPLACE INTO release_review
SELECT review_id, analysis_hash, incident_id, capture_id, reviewer, reviewed_at, case_type,
       expected_family, CAST(scores AS JSON), mean_score, hard_gate_assessment, passing,
       resolution_outcome, action_that_worked, notes, content_sha256, source_file,
       source_line, imported_at
FROM review_import;
