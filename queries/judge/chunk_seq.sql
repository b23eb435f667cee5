-- The bundle_seq range [j_seq_lo, j_seq_hi] (migration 0009) of the keys in j_scope (a chunk,
-- or a detector block), which every chunk input (judge/chunk_input.sql) and the block's output
-- sentences (judge/block_output_sentences.sql) select their rows by. Decides nothing.
SET VARIABLE j_seq_lo = (
    SELECT min(b.bundle_seq) FROM raw_bundle AS b
    SEMI JOIN j_scope AS k ON k.run_id = b.run_id AND k.case_id = b.case_id
);
SET VARIABLE j_seq_hi = (
    SELECT max(b.bundle_seq) FROM raw_bundle AS b
    SEMI JOIN j_scope AS k ON k.run_id = b.run_id AND k.case_id = b.case_id
);
