-- The table output detectors write their sentence matches into (filled by
-- facts/detector_match.sql, read by facts/output.sql).
CREATE OR REPLACE TEMP TABLE j_detector_hit (
    run_id       VARCHAR,
    case_id      VARCHAR,
    detector_id  VARCHAR,
    section_idx  INTEGER,
    sentence_idx INTEGER,
    line_no      INTEGER,
    section      VARCHAR,
    section_kind VARCHAR,
    text         VARCHAR,
    in_scope     BOOLEAN,   -- the sentence is in the detector's scope
    all_ok       BOOLEAN,   -- every `all` pattern matches the sentence too
    negated      BOOLEAN    -- every match of the `any` patterns is negated
);
