-- DuckDB worker threads for this database instance (docs/store.md, "Memory and threads").
SET threads = $threads;
