-- The grammar keys a detector scope never reads (rcaeval.grammar REGEX_KEYS): the detector
-- step binds NEVER_MATCHES for them instead of the grammar's regex, because RE2 compiles every
-- bound pattern once per query and the grammar's windowed alternations are costly to compile.
-- A scope not listed here reads every key. Decides nothing a bound regex would not: these keys'
-- regexes are never reached in facts/detector_match.sql under that scope
-- (tests/judge/test_detector_unused.py judges every scope with and without this list).
SELECT scope, key
FROM (VALUES
    ('anywhere', 'causal'), ('anywhere', 'heading_conclusion'),
    ('anywhere', 'heading_alternatives'), ('anywhere', 'heading_role'),
    ('anywhere', 'label_conclusion'), ('anywhere', 'label_alternatives'),
    ('anywhere', 'label_role'), ('anywhere', 'label_evidence'), ('anywhere', 'lead'),
    ('anywhere', 'bold_lead'), ('anywhere', 'lead_conclusion'),
    ('anywhere', 'lead_alternatives'), ('anywhere', 'lead_role'),
    ('anywhere', 'lead_evidence'), ('anywhere', 'subordinate'), ('anywhere', 'causal_bound'),
    ('anywhere', 'anaphora_in'), ('anywhere', 'anaphora_next'), ('anywhere', 'anaphora_cue'),
    ('anywhere', 'pick'),
    ('alternatives', 'causal'), ('alternatives', 'causal_bound'),
    ('alternatives', 'anaphora_in'), ('alternatives', 'anaphora_next'),
    ('alternatives', 'anaphora_cue'), ('alternatives', 'pick')
) AS t(scope, key)
ORDER BY scope, key;
