-- Does a pattern compile with DuckDB's RE2, the engine detectors run on? The query fails with
-- RE2's message when it does not (the result is not used). rcaeval.registry._regex checks a
-- detector pattern with it at validation time; rcaeval.judge._load.validate_rule_regexes names
-- the failing pattern of a rule load with it.
-- Param: $pattern.
SELECT regexp_matches('', $pattern);
