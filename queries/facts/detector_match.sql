-- Output detectors, one compiled pattern set at a time: the sentences of the final answer
-- (and follow-up answers) where a detector's `any` patterns match, with scope and negation
-- decided. Run once per distinct rule_detector.pattern_key (detectors of any case sharing the
-- same scope and compiled regexes) over every judged run carrying such a detector; the RE2
-- patterns are bound as parameters so DuckDB compiles each once per query instead of once
-- per row. Parameters:
--   $pattern_key $scope
--   $any_regex                 (?i) alternation of the `any` patterns
--   $all_regexes               list of (?i) `all` patterns (matched only on candidate rows)
--   $neg_pre $neg_post         negated-occurrence regexes (rcaeval/judge/_negation.py)
--   $clause_break              clause breaks rewritten to ';' before negation is applied
--   $causal_cue                root_cause scope: a sentence asserting a cause
-- Negation: every negated occurrence (cue + window + match, or match + window + post-cue) is
-- blanked out; the sentence still counts only if the pattern matches what is left.
INSERT INTO j_detector_hit
WITH s AS (
    SELECT o.run_id, o.case_id, r.detector_id, o.section_idx, o.sentence_idx, o.line_no,
           o.section, o.section_kind, o.text
    FROM raw_output_sentence AS o
    JOIN j_scope AS k ON k.run_id = o.run_id AND k.case_id = o.case_id
    JOIN rule_detector AS r ON r.case_id = k.case_id AND r.rules_hash = k.rules_hash
    WHERE r.pattern_key = $pattern_key
      AND regexp_matches(o.text, $any_regex)
)
SELECT run_id, case_id, detector_id, section_idx, sentence_idx, line_no, section,
       section_kind, text,
       CASE $scope
           WHEN 'anywhere' THEN true
           WHEN 'alternatives' THEN coalesce(section_kind = 'alternatives', false)
           ELSE coalesce(section_kind, 'other') = 'root_cause'
                OR (coalesce(section_kind, 'other') <> 'alternatives'
                    AND regexp_matches(text, $causal_cue))
       END AS in_scope,
       coalesce(list_bool_and(list_transform($all_regexes::VARCHAR[],
                                             lambda p: regexp_matches(text, p))), true) AS all_ok,
       NOT regexp_matches(
           regexp_replace(
               regexp_replace(regexp_replace(text, $clause_break, ';', 'g'),
                              $neg_pre, ' ', 'g'),
               $neg_post, ' ', 'g'),
           $any_regex) AS negated
FROM s;
