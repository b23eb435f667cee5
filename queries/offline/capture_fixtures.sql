-- Offline fixtures from a capture export (`capture/1`): decides which captures the offline
-- commands (`offline novel-gate --captures`, `offline score --captures`) grade, and the
-- labels each is graded against.
-- reads: release_capture (release/capture.sql: the valid captures of the window and stage,
--   with their labels resolved - the capture's own, else its latest operator review's),
--   capture_text (release/input_*.sql: the exported response and harness, as text)
-- writes: one row per graded capture, in file/line order: src, line, capture_id, case_type,
--   expected_family, expected_outcome (diagnose | novel | abstain, or NULL),
--   relevant_evidence_ids (JSON list or NULL), response, harness (JSON text). Which labels
--   a fixture needs, and what each expected outcome means as fixture outcomes, is decided in
--   rcaeval/offline/_captures.py (docs/offline.md, "Capture exports").
SELECT c.src, c.line, c.capture_id, c.case_type, c.expected_family, c.expected_outcome,
       CAST(to_json(c.relevant_evidence_ids) AS VARCHAR) AS relevant_evidence_ids,
       CAST(t.response AS VARCHAR)               AS response,
       CAST(t.harness AS VARCHAR)                AS harness
FROM release_capture c
JOIN capture_text t ON t.src = c.src AND t.line = c.line
ORDER BY c.src, c.line;
