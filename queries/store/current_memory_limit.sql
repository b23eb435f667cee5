-- The database instance's current memory limit, as DuckDB prints it (e.g. '953.6 MiB'), so
-- that rcaeval.store.release_cache can set it back after lowering it.
SELECT current_setting('memory_limit');
