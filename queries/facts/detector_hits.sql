-- The table output detectors write their sentence matches into (filled by
-- facts/detector_match.sql, read by facts/output.sql and kept as eval_detector_hit).
CREATE OR REPLACE TEMP TABLE j_detector_hit (
    run_id       VARCHAR,
    case_id      VARCHAR,
    detector_id  VARCHAR,
    scope        VARCHAR,
    section_idx  INTEGER,
    sentence_idx INTEGER,
    line_no      INTEGER,
    section      VARCHAR,
    section_kind VARCHAR,
    text         VARCHAR,
    in_scope     BOOLEAN,   -- the sentence is in the detector's scope
    scope_rule   VARCHAR,   -- which heading / label / causal cue put it in or out of scope
    all_ok       BOOLEAN,   -- every `all` pattern matches the sentence too
    negated      BOOLEAN,   -- every match of the `any` patterns is negated
    hedged       BOOLEAN,   -- not negated, but every remaining match is hedged
    demoted      BOOLEAN,   -- ... or named as a symptom / contributing factor / consequence
    weak         BOOLEAN,   -- ... or only follows weak consequence wording ("caused X")
    strong       BOOLEAN,   -- a match survives every stage
    decided_by   VARCHAR    -- the stage that removed the last match, with its cue
);
