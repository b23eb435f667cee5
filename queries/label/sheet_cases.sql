-- Labelling sheet (docs/calibration.md, "Export"): one row per judged case run of run
-- $run_id (only the case ids in $cases when it is not NULL). Decides what a labeller is shown
-- of the case from the store alone: the judge's verdict, subtype, score and reason, the
-- judge version and rules hash, the ground truth (family and component with their synonyms)
-- and the agent's final answer, rebuilt line by line from raw_output_sentence (each section's
-- heading, then its sentences; sentences on one source line are joined by a space).
WITH lines AS (
    SELECT run_id, case_id, section_idx, any_value(section) AS section,
           coalesce(line_no, -1) AS line_no,
           string_agg(text, ' ' ORDER BY sentence_idx) AS text
    FROM raw_output_sentence
    WHERE run_id = $run_id
    GROUP BY run_id, case_id, section_idx, coalesce(line_no, -1)
), sections AS (
    SELECT run_id, case_id, section_idx,
           CASE WHEN coalesce(any_value(section), '') = '' THEN ''
                ELSE '## ' || any_value(section) || chr(10) END
           || string_agg(text, chr(10) ORDER BY line_no) AS body
    FROM lines
    GROUP BY run_id, case_id, section_idx
), answers AS (
    SELECT run_id, case_id, string_agg(body, chr(10) || chr(10) ORDER BY section_idx) AS answer
    FROM sections
    GROUP BY run_id, case_id
)
SELECT j.run_id, j.case_id, j.case_type, j.judge_version, j.rules_hash,
       j.verdict AS judge_verdict, j.subtype AS judge_subtype, j.score AS judge_score,
       j.reason AS judge_reason,
       coalesce(t.family, '') AS truth_family,
       coalesce(array_to_string(t.family_synonyms, ', '), '') AS truth_family_synonyms,
       coalesce(t.component, '') AS truth_component,
       coalesce(array_to_string(t.component_synonyms, ', '), '') AS truth_component_synonyms,
       coalesce(a.answer, '') AS answer
FROM eval_judgment j
LEFT JOIN rule_truth t ON t.case_id = j.case_id AND t.rules_hash = j.rules_hash
LEFT JOIN answers a ON a.run_id = j.run_id AND a.case_id = j.case_id
WHERE j.run_id = $run_id
  AND ($cases IS NULL OR list_contains($cases, j.case_id))
ORDER BY j.case_id;
