-- Drop one chunk input table j_{chunk_table} (judge/chunk_input.sql makes one per raw table
-- but raw_bundle) before the next chunk's pass recreates it, so that rcaeval.store.release_cache
-- can give its memory back instead of spilling it to the temp directory (docs/judge.md
-- "Chunks and memory"). Decides nothing.
DROP TABLE IF EXISTS j_{chunk_table};
