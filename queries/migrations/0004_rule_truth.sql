-- Migration 0004: the registry's ground truth per judged case version, so metrics over judged
-- suite runs (queries/metrics/suite_known_top1.sql) can compare the family an answer names
-- with the case's ground-truth family. Filled with the other rule_* tables whenever a case is
-- judged (judge.yaml ground_truth.root_cause); a case without a ground-truth family has no
-- row.

CREATE TABLE IF NOT EXISTS rule_truth (
    case_id     VARCHAR NOT NULL,
    rules_hash  VARCHAR NOT NULL,
    family      VARCHAR NOT NULL,     -- ground_truth.root_cause.family
    component   VARCHAR,              -- ground_truth.root_cause.component
    PRIMARY KEY (case_id, rules_hash)
);
