-- The output sentences of a detector block: j_raw_output_sentence holds the raw_output_sentence
-- rows of every (run_id, case_id) key in j_scope, where j_scope is a block of several judging
-- chunks. The output detectors (facts/detector_match.sql) then run once per block instead of
-- once per chunk: each detector query compiles a score of RE2 regexes, a fixed cost per query
-- whatever the number of runs (docs/judge.md, "Performance"). Chunks take their hits from the
-- block's (judge/chunk_detector_hits.sql).
-- Rows are found as in judge/chunk_input.sql: by the block's bundle_seq range (judge/
-- chunk_seq.sql over the block's j_scope), rows without a bundle_seq always looked at, then
-- the semi join on the keys. Decides nothing.
CREATE OR REPLACE TEMP TABLE j_raw_output_sentence AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_output_sentence AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;
