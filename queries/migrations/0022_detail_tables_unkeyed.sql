-- Migration 0022: the judge's per-check detail tables (eval_fact, eval_check, eval_bucket,
-- eval_detector_hit, eval_trajectory_tool) lose their PRIMARY KEY constraints. Their keys stay
-- what they were (queries/store/unenforced_keys.sql lists them), but DuckDB no longer checks
-- them on every insert: the judge's writer keeps them unique itself (it deletes a chunk's
-- (run, case) rows, then inserts, in one transaction), and keeping a unique index over tens
-- of millions of detail rows cost 10-23% of a judge's CPU. Store.write_frame and
-- Store.import_parquet check the keys of what they write; `rcaeval doctor` checks the store.
-- Each table is rebuilt with the same columns in the same order (NOT NULL kept on the key
-- columns), its rows copied, the old table dropped and the new one renamed.

CREATE TABLE eval_fact__0022 (
    run_id           VARCHAR NOT NULL,
    case_id          VARCHAR NOT NULL,
    fact             VARCHAR NOT NULL,
    value            BOOLEAN NOT NULL,
    detail           VARCHAR,
    evidence_file    VARCHAR,
    evidence_path    VARCHAR,
    evidence_line    INTEGER,
    evidence_excerpt VARCHAR
);
INSERT INTO eval_fact__0022 SELECT * FROM eval_fact;
DROP TABLE eval_fact;
ALTER TABLE eval_fact__0022 RENAME TO eval_fact;

CREATE TABLE eval_check__0022 (
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
    evidence_excerpt VARCHAR
);
INSERT INTO eval_check__0022 SELECT * FROM eval_check;
DROP TABLE eval_check;
ALTER TABLE eval_check__0022 RENAME TO eval_check;

CREATE TABLE eval_bucket__0022 (
    run_id     VARCHAR NOT NULL,
    case_id    VARCHAR NOT NULL,
    bucket     VARCHAR NOT NULL,          -- contract | workflow | execution_contract | ...
    status     VARCHAR NOT NULL,          -- pass | partial | fail | not_evaluated
    score      DOUBLE,
    max_score  DOUBLE,
    reason     VARCHAR
);
INSERT INTO eval_bucket__0022 SELECT * FROM eval_bucket;
DROP TABLE eval_bucket;
ALTER TABLE eval_bucket__0022 RENAME TO eval_bucket;

CREATE TABLE eval_detector_hit__0022 (
    run_id       VARCHAR NOT NULL,
    case_id      VARCHAR NOT NULL,
    detector_id  VARCHAR NOT NULL,
    section_idx  INTEGER NOT NULL,
    sentence_idx INTEGER NOT NULL,
    section      VARCHAR,
    line_no      INTEGER,
    file         VARCHAR,             -- output.txt, or transcript.json for follow-up answers
    text         VARCHAR,
    fires        BOOLEAN NOT NULL,    -- this sentence makes the detector fire
    scope_rule   VARCHAR,             -- why it is (not) in scope: heading / label / causal cue
    decided_by   VARCHAR              -- the stage that decided it and its cue
);
INSERT INTO eval_detector_hit__0022 SELECT * FROM eval_detector_hit;
DROP TABLE eval_detector_hit;
ALTER TABLE eval_detector_hit__0022 RENAME TO eval_detector_hit;

CREATE TABLE eval_trajectory_tool__0022 (
    run_id         VARCHAR NOT NULL,
    case_id        VARCHAR NOT NULL,
    tool           VARCHAR NOT NULL,
    channel        VARCHAR,              -- the evidence channel the tool reads, NULL: none
    calls          INTEGER NOT NULL,
    failed_calls   INTEGER NOT NULL,
    repeated_calls INTEGER NOT NULL,
    first_step     INTEGER NOT NULL
);
INSERT INTO eval_trajectory_tool__0022 SELECT * FROM eval_trajectory_tool;
DROP TABLE eval_trajectory_tool;
ALTER TABLE eval_trajectory_tool__0022 RENAME TO eval_trajectory_tool;
