-- Where DuckDB spills (rcaeval.store._connect): <store>.tmp, the directory DuckDB uses for a
-- file it opens itself (an in-memory instance would otherwise spill to ./.tmp).
-- $dir: the directory.
SET temp_directory = $dir;
