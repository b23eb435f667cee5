-- Migration 0001: the initial rcaeval store.
-- Run records (seed 001 §7.1), judge outputs (checks, buckets, judgments) and the raw tables
-- extraction fills. Every table is keyed by (run_id, case_id) where it concerns a case run.

CREATE TABLE IF NOT EXISTS eval_runs (
    run_id          VARCHAR PRIMARY KEY,
    suite_id        VARCHAR,
    suite_version   VARCHAR,
    agent_spec      VARCHAR,          -- the --agent spec as given
    agent_hash      VARCHAR,          -- hash of the agent configuration (resume key)
    source          VARCHAR,          -- 'runner' | 'judge' (judged from an audit dir)
    audit_root      VARCHAR,
    status          VARCHAR,          -- running | completed | interrupted | failed
    started_at      TIMESTAMPTZ,
    finished_at     TIMESTAMPTZ,
    judge_version   VARCHAR,
    notes           VARCHAR
);

CREATE TABLE IF NOT EXISTS eval_case_runs (
    run_id             VARCHAR NOT NULL,
    case_id            VARCHAR NOT NULL,
    status             VARCHAR NOT NULL,  -- pending | running | judged | errored | timed_out
    attempts           INTEGER DEFAULT 0,
    workspace_id       VARCHAR,
    audit_path         VARCHAR,
    started_at         TIMESTAMPTZ,
    finished_at        TIMESTAMPTZ,
    duration_s         DOUBLE,
    input_tokens       BIGINT,
    output_tokens      BIGINT,
    cache_read_tokens  BIGINT,
    cache_write_tokens BIGINT,
    cost_usd           DOUBLE,
    error              VARCHAR,
    PRIMARY KEY (run_id, case_id)
);

CREATE TABLE IF NOT EXISTS eval_judgment (
    run_id          VARCHAR NOT NULL,
    case_id         VARCHAR NOT NULL,
    verdict         VARCHAR NOT NULL,     -- pass | fail | invalid
    subtype         VARCHAR,              -- which precedence step decided the verdict
    score           DOUBLE,               -- after banding
    raw_score       DOUBLE,               -- before banding
    hard_gate       BOOLEAN,
    case_type       VARCHAR,
    scoring_profile VARCHAR,
    judge_version   VARCHAR,
    rules_hash      VARCHAR,
    reason          VARCHAR,
    judgment_json   VARCHAR,              -- the judgment.json packet, byte-identical to the file
    judged_at       TIMESTAMPTZ,
    PRIMARY KEY (run_id, case_id)
);

CREATE TABLE IF NOT EXISTS eval_bucket (
    run_id     VARCHAR NOT NULL,
    case_id    VARCHAR NOT NULL,
    bucket     VARCHAR NOT NULL,          -- contract | workflow | execution_contract | ...
    status     VARCHAR NOT NULL,          -- pass | partial | fail | not_evaluated
    score      DOUBLE,
    max_score  DOUBLE,
    reason     VARCHAR,
    PRIMARY KEY (run_id, case_id, bucket)
);

CREATE TABLE IF NOT EXISTS eval_check (
    run_id           VARCHAR NOT NULL,
    case_id          VARCHAR NOT NULL,
    bucket           VARCHAR NOT NULL,
    check_id         VARCHAR NOT NULL,
    kind             VARCHAR,             -- check | hard | supporting
    required         BOOLEAN,
    weight           DOUBLE,
    passed           BOOLEAN,
    reason           VARCHAR,             -- why it passed or failed
    evidence_file    VARCHAR,             -- the evidence that decided it
    evidence_path    VARCHAR,             -- JSON path, when JSON decided it
    evidence_line    INTEGER,             -- line number, when a log/telemetry/output line did
    evidence_excerpt VARCHAR,
    PRIMARY KEY (run_id, case_id, bucket, check_id)
);

-- Raw tables: what extraction flattens out of each bundle.
CREATE TABLE IF NOT EXISTS raw_bundle (
    run_id        VARCHAR NOT NULL,
    case_id       VARCHAR NOT NULL,
    case_dir      VARCHAR,
    bundle_dir    VARCHAR,                -- NULL when unresolved
    status        VARCHAR NOT NULL,       -- resolved | bundle_missing | bundle_ambiguous
    reason        VARCHAR,
    workspace_id  VARCHAR,
    manifest_status VARCHAR,
    PRIMARY KEY (run_id, case_id)
);

CREATE TABLE IF NOT EXISTS raw_file (
    run_id    VARCHAR NOT NULL,
    case_id   VARCHAR NOT NULL,
    file      VARCHAR NOT NULL,           -- path relative to the bundle (or case) dir
    kind      VARCHAR,                    -- report | metrics | queries | logs | events | ...
    size      BIGINT,
    sha256    VARCHAR,
    status    VARCHAR NOT NULL,           -- ok | parse_error | too_large | not_utf8 | outside_bundle | unreadable
    detail    VARCHAR
);

CREATE TABLE IF NOT EXISTS raw_json (
    run_id     VARCHAR NOT NULL,
    case_id    VARCHAR NOT NULL,
    file       VARCHAR NOT NULL,
    path       VARCHAR NOT NULL,          -- JSONPath-lite of the value, e.g. $.series[0].name
    parent     VARCHAR,                   -- path of the containing value
    key        VARCHAR,                   -- object key or array index as text
    type       VARCHAR NOT NULL,          -- string | number | boolean | null | object | array
    value_text VARCHAR,                   -- strings and numbers as text; object/array: NULL
    value_num  DOUBLE,
    length     INTEGER                    -- element count for arrays/objects
);

CREATE TABLE IF NOT EXISTS raw_log_line (
    run_id     VARCHAR NOT NULL,
    case_id    VARCHAR NOT NULL,
    file       VARCHAR NOT NULL,          -- logs/<name> or evidences/logs.json
    line_no    INTEGER NOT NULL,          -- 1-based line (or entry index for logs.json)
    entry_id   VARCHAR,                   -- logs.json entry id
    ts         TIMESTAMPTZ,
    level      VARCHAR,
    component  VARCHAR,
    instance   VARCHAR,
    text       VARCHAR
);

CREATE TABLE IF NOT EXISTS raw_telemetry (
    run_id   VARCHAR NOT NULL,
    case_id  VARCHAR NOT NULL,
    line_no  INTEGER NOT NULL,
    ts       TIMESTAMPTZ,
    event    VARCHAR,
    tool     VARCHAR,
    status   VARCHAR,
    detail   VARCHAR,
    text     VARCHAR
);

CREATE TABLE IF NOT EXISTS raw_metric_point (
    run_id     VARCHAR NOT NULL,
    case_id    VARCHAR NOT NULL,
    series_idx INTEGER NOT NULL,
    series_id  VARCHAR,
    name       VARCHAR,
    labels     MAP(VARCHAR, VARCHAR),
    ts         TIMESTAMPTZ,
    value      DOUBLE
);

CREATE TABLE IF NOT EXISTS raw_query (
    run_id         VARCHAR NOT NULL,
    case_id        VARCHAR NOT NULL,
    idx            INTEGER NOT NULL,
    query_id       VARCHAR,
    digest         VARCHAR,
    kind           VARCHAR,
    sql_text       VARCHAR,
    instance       VARCHAR,
    exec_count     BIGINT,
    avg_latency_ms DOUBLE,
    note           VARCHAR
);

CREATE TABLE IF NOT EXISTS raw_event (
    run_id   VARCHAR NOT NULL,
    case_id  VARCHAR NOT NULL,
    idx      INTEGER NOT NULL,
    source   VARCHAR,                     -- events.json | report
    event_id VARCHAR,
    ts       TIMESTAMPTZ,
    type     VARCHAR,
    object   VARCHAR,
    reason   VARCHAR,
    message  VARCHAR
);

CREATE TABLE IF NOT EXISTS raw_patch_item (
    run_id   VARCHAR NOT NULL,
    case_id  VARCHAR NOT NULL,
    idx      INTEGER NOT NULL,
    item_id  VARCHAR,
    role     VARCHAR,
    claim    VARCHAR,
    shape_ok BOOLEAN,
    problem  VARCHAR
);

CREATE TABLE IF NOT EXISTS raw_patch_ref (
    run_id    VARCHAR NOT NULL,
    case_id   VARCHAR NOT NULL,
    item_idx  INTEGER NOT NULL,
    ref_idx   INTEGER NOT NULL,
    ref_type  VARCHAR,
    ref_id    VARCHAR
);

CREATE TABLE IF NOT EXISTS raw_output_sentence (
    run_id       VARCHAR NOT NULL,
    case_id      VARCHAR NOT NULL,
    section_idx  INTEGER NOT NULL,
    section      VARCHAR,                 -- heading text ('' before the first heading)
    section_kind VARCHAR,                 -- root_cause | alternatives | other | followup
    sentence_idx INTEGER NOT NULL,
    line_no      INTEGER,
    text         VARCHAR
);

-- The case metadata the judge needs, one row per (run, case) judged.
CREATE TABLE IF NOT EXISTS case_meta (
    run_id           VARCHAR NOT NULL,
    case_id          VARCHAR NOT NULL,
    case_type        VARCHAR,
    cluster_id       VARCHAR,
    window_start     TIMESTAMPTZ,
    window_end       TIMESTAMPTZ,
    tolerance_s      INTEGER,
    rules_hash       VARCHAR,
    scoring_profile  VARCHAR,
    PRIMARY KEY (run_id, case_id)
);
