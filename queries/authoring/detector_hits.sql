-- `rcaeval case try` / detector examples: every sentence a detector matched in the judged
-- answers, whether it makes the detector fire and the rule that decided it (as
-- `rcaeval explain` shows them); ordered by detector, then position in the answer.
SELECT run_id, case_id, detector_id, file, line_no, section, text, fires, scope_rule,
       decided_by
FROM eval_detector_hit
ORDER BY run_id, case_id, detector_id, section_idx, sentence_idx;
