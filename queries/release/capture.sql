-- The release window: decides which captures are measured: the rows capture_scan.sql marked
-- as in the window (and the stage) that validation found no problem with.
-- reads: capture_row (capture_scan.sql), capture_problem (validate_captures.sql)
-- writes: release_capture (a view) -- one row per valid capture in the window, with the
--   columns capture_scan.sql computed for it (what each column means is stated there):
--   src, line, capture_id, captured_at, stage, population, incident_id, analysis_hash,
--   harness_status, case_type, expected_family, expected_outcome, relevant_evidence_ids,
--   rc_family, rc_confidence, outcome, novel, hyp_families, rc_evidence_ids, cited_ids,
--   evidence, outage_test, tool_executions, knowledge_activations; capture/2: knowledge_text,
--   trace_text, cd_text (trace.sql parses them).
-- How: a view, not a copy: each metric reads the columns it needs from capture_row (typed
--   once, by the scan); the anti-join is with the few problem rows.
CREATE OR REPLACE TEMP VIEW release_capture AS
SELECT c.src, c.line, c.capture_id, c.captured_at, c.stage, c.population, c.incident_id,
       c.analysis_hash, c.harness_status, c.case_type, c.expected_family, c.expected_outcome,
       c.relevant_evidence_ids, c.rc_family, c.rc_confidence, c.outcome, c.novel,
       c.hyp_families, c.rc_evidence_ids, c.cited_ids, c.evidence, c.outage_test,
       c.tool_executions, c.knowledge_activations, c.knowledge_text, c.trace_text, c.cd_text
FROM capture_row c ANTI JOIN capture_problem p ON p.src = c.src AND p.line = c.line
WHERE c.measured;
