-- Seal the database instance from the file system for the rest of its life: no COPY ... TO,
-- EXPORT DATABASE, ATTACH, read_csv/read_parquet of other files or extension installs, and no
-- way back (DuckDB refuses to enable external access again while the instance runs). Spilling
-- to the instance's own temporary directory still works. `rcaeval db sql` runs it on the
-- read-only store it opens (without --write), so a read-only query writes and reads nothing
-- but the store (docs/store.md, "CLI").
SET enable_external_access = false;
