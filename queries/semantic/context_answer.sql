-- Semantic context (docs/semantic.md), the answer: the final answer's sentences as extraction
-- split them (raw_output_sentence), for the resolved case runs of j_scope, in reading order.
-- Python joins them back into text: a heading line per section, follow-up turns marked.
SELECT s.run_id, s.case_id, s.section_idx, s.section, s.section_kind, s.sentence_idx, s.text
FROM raw_output_sentence AS s
JOIN j_scope AS k ON k.run_id = s.run_id AND k.case_id = s.case_id
WHERE k.resolved
ORDER BY s.run_id, s.case_id, s.section_idx, s.sentence_idx;
