-- The stored detector hits of one (run, case) (`rcaeval explain --hits`): every sentence an
-- output detector matched, whether it makes the detector fire and which rule decided it;
-- ordered by detector, then position in the output.
SELECT detector_id, file, line_no, section, text, fires, scope_rule, decided_by
FROM eval_detector_hit
WHERE run_id = $run_id AND case_id = $case_id
ORDER BY detector_id, section_idx, sentence_idx;
