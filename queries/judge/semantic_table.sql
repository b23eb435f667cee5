-- j_semantic_check: the semantic shadow's verdicts on diagnosis checks (docs/semantic.md),
-- empty unless a second pass supplies them (judge/semantic_rows.sql).
CREATE OR REPLACE TEMP TABLE j_semantic_check (
    run_id     VARCHAR,
    case_id    VARCHAR,
    check_id   VARCHAR,
    passed     BOOLEAN,
    votes_pass INTEGER,
    votes_fail INTEGER,
    rationale  VARCHAR
);
