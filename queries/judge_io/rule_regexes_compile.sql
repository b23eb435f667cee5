-- Compile every distinct regex of the rule tables with DuckDB's RE2 in one query
-- (rcaeval.judge._load.validate_rule_regexes): it fails when any pattern is not valid RE2, and
-- the caller then probes them one by one (queries/registry/re2_compile.sql) to name the
-- culprit. The count itself is not used.
-- Input: __rcaeval_patterns (p), one row per distinct pattern.
SELECT count(*) FROM __rcaeval_patterns WHERE regexp_matches('', p);
