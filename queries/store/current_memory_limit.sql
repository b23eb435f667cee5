-- The database instance's current memory limit, as DuckDB prints it (e.g. '953.6 MiB'), so
-- that rcaeval.store.release_cache can set it back after lowering it, and whether the current
-- database is a file (an in-memory database's tables live in the buffer pool: evicting them
-- would spill the whole store to the temp directory, so release_cache leaves it alone).
-- The judge also quotes memory_limit in its out-of-memory error (rcaeval.judge._audit).
SELECT current_setting('memory_limit') AS memory_limit,
       (SELECT path FROM duckdb_databases() WHERE database_name = current_database())
           IS NOT NULL AS file_backed;
