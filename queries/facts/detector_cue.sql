-- detector_cue: the cue that decided one cue stage of facts/detector_match.sql (its
-- `decided_by`). In the stage's input text `t`, the span the stage's `pre` regex (cue + window
-- + match) blanks starts with the cue `before_cue` finds; else the `post` span (match +
-- window + cue) ends with the last `after_cue`; '?' when neither names one. The regexes are
-- the detector query's bound parameters, so DuckDB still compiles each once per query.
CREATE OR REPLACE TEMP MACRO detector_cue(t, pre, post, before_cue, after_cue) AS
    coalesce(nullif(regexp_extract(regexp_extract(t, pre, 0), before_cue, 0), ''),
             list_last(regexp_extract_all(regexp_extract(t, post, 0), after_cue)), '?');
