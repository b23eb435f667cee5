-- Cap DuckDB's buffer pool for this database instance (docs/store.md, "Memory and threads").
-- $limit: a DuckDB memory size such as '2GB', '512MiB' or '75%'.
SET memory_limit = $limit;
