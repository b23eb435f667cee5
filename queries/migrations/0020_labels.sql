-- Migration 0020: human labels of judged case runs (docs/calibration.md).
-- One eval_label row per label as imported: a labeller's verdict and answers about one
-- (run_id, case_id). A relabel is a new row; older rows stay as history. Which label of a
-- labeller counts is decided at query time by queries/label/effective.sql. Per-bucket,
-- per-check and per-detector answers are rows of eval_label_item. label_baseline keeps the
-- judge's values for labelled case runs under a judge version, for `rcaeval label gate`.

CREATE TABLE IF NOT EXISTS eval_label (
    label_id           VARCHAR PRIMARY KEY,  -- sha256 of the label's content and labeller
    run_id             VARCHAR NOT NULL,
    case_id            VARCHAR NOT NULL,
    labeller           VARCHAR NOT NULL,
    source             VARCHAR NOT NULL,     -- sheet | operator_review
    verdict            VARCHAR,              -- pass | fail | invalid (NULL: not labelled)
    root_cause_correct BOOLEAN,
    evidence_adequate  BOOLEAN,
    unsafe_advice      BOOLEAN,
    notes              VARCHAR,
    blind              BOOLEAN,              -- the sheet hid the judge's verdict and checks
    sheet_judge_version VARCHAR,             -- the judge version the sheet was exported from
    labelled_at        TIMESTAMPTZ,          -- as written on the sheet, else the import time
    imported_at        TIMESTAMPTZ NOT NULL,
    source_file        VARCHAR,
    source_line        INTEGER
);

CREATE TABLE IF NOT EXISTS eval_label_item (
    label_id VARCHAR NOT NULL,
    level    VARCHAR NOT NULL,               -- bucket | check | detector
    item     VARCHAR NOT NULL,               -- bucket name | bucket.check_id | detector id
    value    VARCHAR NOT NULL,               -- pass | fail (bucket, check); fires | silent
    PRIMARY KEY (label_id, level, item)
);

CREATE TABLE IF NOT EXISTS label_baseline (
    judge_version VARCHAR NOT NULL,
    run_id        VARCHAR NOT NULL,
    case_id       VARCHAR NOT NULL,
    level         VARCHAR NOT NULL,          -- verdict | bucket | check | detector
    item          VARCHAR NOT NULL,
    value         VARCHAR NOT NULL,
    rules_hash    VARCHAR,
    recorded_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (judge_version, run_id, case_id, level, item)
);
