-- Keep a detector block's sentence matches (j_detector_hit, filled by facts/detector_match.sql
-- over the block's j_scope) as j_block_detector_hit, for the block's chunks to take their own
-- rows from (judge/chunk_detector_hits.sql). Decides nothing.
CREATE OR REPLACE TEMP TABLE j_block_detector_hit AS
SELECT * FROM j_detector_hit;
