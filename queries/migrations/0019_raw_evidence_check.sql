-- Evidence integrity (docs/judge.md, "Sealed evidence"): one row per record of the sealed
-- evidence files, with its seal state against the runner's per-case key (sealed / unsealed /
-- altered; NULL when the run has no key) and its agreement with the case's incident data
-- (matches / contradicts; NULL when the incident data cannot confirm it). Filled when the
-- audit is extracted (rcaeval/extract/_integrity.py); the facts evidence.unsealed_records
-- and evidence.contradicts_incident_data are read from it (queries/facts/evidence.sql).
CREATE TABLE IF NOT EXISTS raw_evidence_check (
    run_id     VARCHAR NOT NULL,
    case_id    VARCHAR NOT NULL,
    file       VARCHAR,
    record_id  VARCHAR,
    seal       VARCHAR,
    incident   VARCHAR,
    detail     VARCHAR,
    bundle_seq BIGINT
);
