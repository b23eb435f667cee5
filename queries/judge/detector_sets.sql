-- The distinct compiled detector pattern sets (rule_detector.pattern_key) of the case
-- versions in the chunk (j_scope), with what facts/detector_match.sql binds for each: one
-- detector query per row, a loop over rules, never over runs (docs/judge.md, "Detectors").
SELECT r.pattern_key, any_value(r.scope), any_value(r.any_regex), any_value(r.all_regexes),
       any_value(r.negation), any_value(r.neg_pre_regex), any_value(r.neg_post_regex),
       any_value(r.grammar_regexes), any_value(r.any_patterns)
FROM rule_detector AS r
JOIN (SELECT DISTINCT case_id, rules_hash FROM j_scope) AS k
  ON k.case_id = r.case_id AND k.rules_hash = r.rules_hash
GROUP BY r.pattern_key
ORDER BY r.pattern_key;
