-- A chunk's output detector matches when its detector block already ran the detectors
-- (judge/block_output_sentences.sql, judge/block_detector_hits.sql): j_detector_hit gets the
-- rows of j_block_detector_hit whose (run_id, case_id) is in the chunk's j_scope -- the rows a
-- detector pass over the chunk alone would have written, since every detector query decides
-- each sentence from its own run's rows. Decides nothing.
CREATE OR REPLACE TEMP TABLE j_detector_hit AS
SELECT h.*
FROM j_block_detector_hit AS h
SEMI JOIN j_scope AS k ON k.run_id = h.run_id AND k.case_id = h.case_id;
