-- eval_detector_hit: every sentence an output detector matched in the judged pass, with the
-- rule that decided it (for `rcaeval explain`). Reads j_detector_fire (facts/output.sql).
INSERT INTO eval_detector_hit
SELECT run_id, case_id, detector_id, section_idx, sentence_idx, section, line_no,
       CASE WHEN section_kind = 'followup' THEN 'transcript.json' ELSE 'output.txt' END,
       text, fires, scope_rule,
       CASE
           WHEN fires THEN 'fires' || CASE WHEN weak THEN ' (' || decided_by
                                                  || ', but no other cause asserted here)'
                                          ELSE '' END
           WHEN NOT in_scope THEN 'outside scope ' || scope
           WHEN NOT all_ok THEN 'an `all` pattern is missing'
           WHEN weak THEN decided_by || ' (another detector asserts the cause here)'
           ELSE decided_by
       END
FROM j_detector_fire;
