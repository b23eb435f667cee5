-- Migration 0002: the judge's rule tables and its fact rows (docs/judge.md).
-- judge.yaml flattens into rule_* rows keyed by (case_id, rules_hash), so the rules of one
-- case version are stable and several versions can coexist; case_meta.rules_hash says which
-- version a (run, case) was judged with. eval_fact keeps every fact the judge derived, with
-- the evidence that decided it, so a judgment can be explained by querying.

CREATE TABLE IF NOT EXISTS rule_check (
    case_id     VARCHAR NOT NULL,
    rules_hash  VARCHAR NOT NULL,
    bucket      VARCHAR NOT NULL,     -- contract | workflow | ... | diagnosis
    check_id    VARCHAR NOT NULL,
    kind        VARCHAR NOT NULL,     -- check | hard | supporting (the last two: diagnosis)
    required    BOOLEAN NOT NULL,
    soft        BOOLEAN NOT NULL,     -- score-only: failing it never makes the bucket fail
    weight      DOUBLE NOT NULL,
    combinator  VARCHAR NOT NULL,     -- all | any
    ord         INTEGER NOT NULL,     -- position within the bucket (hard before supporting)
    description VARCHAR,
    PRIMARY KEY (case_id, rules_hash, bucket, check_id)
);

CREATE TABLE IF NOT EXISTS rule_condition (
    case_id          VARCHAR NOT NULL,
    rules_hash       VARCHAR NOT NULL,
    bucket           VARCHAR NOT NULL,
    check_id         VARCHAR NOT NULL,
    cond_idx         INTEGER NOT NULL,
    ctype            VARCHAR NOT NULL,  -- fact | detector | method
    name             VARCHAR,           -- fact name / detector id / method name
    expect           BOOLEAN NOT NULL,  -- facts and detectors: the value that makes it hold
    method           VARCHAR,           -- keyword_any | json_list_nonempty | ...
    source           VARCHAR,           -- keyword_any: 'logs' or an evidence file name
    file             VARCHAR,           -- json_* / numeric_series_any_gt: evidence file name
    path             VARCHAR,           -- JSONPath-lite as written
    path_star        VARCHAR,           -- the path with every index written [*]
    path_has_index   BOOLEAN,           -- the path names an explicit [N]
    path_regex       VARCHAR,           -- RE2: ^path$ ([*] -> any index)
    path_prefix_regex VARCHAR,          -- RE2: the path or anything under it
    keywords         VARCHAR[],         -- keyword_any keywords / json_text_contains_any needles
    series           VARCHAR,           -- numeric_series_any_gt metric name
    labels           MAP(VARCHAR, VARCHAR),
    threshold        DOUBLE,
    PRIMARY KEY (case_id, rules_hash, bucket, check_id, cond_idx)
);

CREATE TABLE IF NOT EXISTS rule_detector (
    case_id        VARCHAR NOT NULL,
    rules_hash     VARCHAR NOT NULL,
    detector_id    VARCHAR NOT NULL,
    description    VARCHAR,
    scope          VARCHAR NOT NULL,    -- root_cause | anywhere | alternatives
    negation       BOOLEAN NOT NULL,
    any_patterns   VARCHAR[] NOT NULL,  -- as written
    all_patterns   VARCHAR[] NOT NULL,
    any_regex      VARCHAR NOT NULL,    -- (?i) alternation of any_patterns
    all_regexes    VARCHAR[] NOT NULL,  -- (?i) each all pattern
    neg_pre_regex  VARCHAR,             -- negation cue shortly before a match (NULL: no negation)
    neg_post_regex VARCHAR,             -- post-negation shortly after a match
    pattern_key    VARCHAR NOT NULL,    -- hash of scope + compiled regexes: detectors sharing
                                        -- it are matched by one query
    PRIMARY KEY (case_id, rules_hash, detector_id)
);

CREATE TABLE IF NOT EXISTS rule_bucket_param (
    case_id                VARCHAR NOT NULL,
    rules_hash             VARCHAR NOT NULL,
    preferred_channels     VARCHAR[] NOT NULL,
    min_preferred_channels INTEGER NOT NULL,
    diagnosis_mode         VARCHAR NOT NULL,  -- deterministic_only | blended
    scoring_profile        VARCHAR NOT NULL,
    PRIMARY KEY (case_id, rules_hash)
);

CREATE TABLE IF NOT EXISTS eval_fact (
    run_id           VARCHAR NOT NULL,
    case_id          VARCHAR NOT NULL,
    fact             VARCHAR NOT NULL,
    value            BOOLEAN NOT NULL,
    detail           VARCHAR,
    evidence_file    VARCHAR,
    evidence_path    VARCHAR,
    evidence_line    INTEGER,
    evidence_excerpt VARCHAR,
    PRIMARY KEY (run_id, case_id, fact)
);
