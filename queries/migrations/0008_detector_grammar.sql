-- Detector grammar (docs/registry.md, "Detector grammar"): every regex a detector's merged
-- grammar compiles to (labels, causal / hedge / role / consequence cues and the cue-only
-- regexes naming the deciding cue), keyed by rcaeval.grammar.REGEX_KEYS; and one row per
-- sentence an output detector matched, with the rule that decided it, for `rcaeval explain`.
ALTER TABLE rule_detector ADD COLUMN IF NOT EXISTS grammar_regexes MAP(VARCHAR, VARCHAR);

CREATE TABLE IF NOT EXISTS eval_detector_hit (
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
    decided_by   VARCHAR,             -- the stage that decided it and its cue
    PRIMARY KEY (run_id, case_id, detector_id, section_idx, sentence_idx)
);
