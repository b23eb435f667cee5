-- Whether any output sentence of the chunk (j_raw_output_sentence) whose case version
-- declares pattern set $key matches its `any` regex $any: when none does, the pattern set's
-- detector query (facts/detector_match.sql, costly to compile) is skipped. Decides nothing:
-- without a candidate sentence the query would find no hit either.
SELECT EXISTS (
    SELECT 1
    FROM j_raw_output_sentence AS o
    JOIN j_scope AS k ON k.run_id = o.run_id AND k.case_id = o.case_id
    JOIN rule_detector AS r ON r.case_id = k.case_id AND r.rules_hash = k.rules_hash
    WHERE r.pattern_key = $key AND regexp_matches(o.text, $any)
);
