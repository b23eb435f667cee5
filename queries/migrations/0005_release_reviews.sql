-- Migration 0005: operator reviews and the analyses they review (docs/release.md).
-- A review is tied to the analysis_hash it reviewed; a re-analysis of an incident (a new
-- analysis_hash) opens a new review surface and older reviews stay as history. Which analysis
-- is current, and which review is effective, is decided at query time by
-- queries/release/review_history.sql.

CREATE TABLE IF NOT EXISTS release_review (
    review_id            VARCHAR PRIMARY KEY,
    analysis_hash        VARCHAR NOT NULL,   -- sha256:<64 hex>, the harness analysis_hash
    incident_id          VARCHAR,
    capture_id           VARCHAR,
    reviewer             VARCHAR,
    reviewed_at          TIMESTAMPTZ NOT NULL,
    case_type            VARCHAR NOT NULL,   -- known | compositional | novel | tool_degraded
    expected_family      VARCHAR,
    scores               JSON NOT NULL,      -- the seven 0-5 scores by name
    mean_score           DOUBLE NOT NULL,
    hard_gate_assessment VARCHAR NOT NULL,   -- pass | fail
    passing              BOOLEAN NOT NULL,   -- hard gates pass and mean score >= 3.5
    resolution_outcome   VARCHAR,            -- resolved | mitigated | unresolved | false_positive
    action_that_worked   VARCHAR,
    notes                VARCHAR,
    content_sha256       VARCHAR NOT NULL,   -- of the review as imported (re-import detection)
    source_file          VARCHAR,
    source_line          INTEGER,
    imported_at          TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS release_analysis (
    analysis_hash VARCHAR PRIMARY KEY,
    incident_id   VARCHAR,
    analyzed_at   TIMESTAMPTZ NOT NULL,      -- captured_at of its capture, else its first review
    capture_id    VARCHAR,
    source        VARCHAR NOT NULL           -- capture | review
);
