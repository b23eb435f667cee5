-- Open the store file in this process's database instance for it (rcaeval.store._connect):
-- a named in-memory instance per store file and mode, into which the file is attached, so
-- that the store's row groups can be smaller than DuckDB's default (ROW_GROUP_SIZE is an
-- ATTACH option, not a setting; docs/store.md "Row groups"). IF NOT EXISTS: a second
-- connection in the same process finds the file already attached and shares it.
-- $path: the store file. {alias}: the catalog name (quoted), the file name up to its first
-- dot, as DuckDB names a file it opens itself. {row_group_size}: rows, a multiple of 2048.
-- {read_only}: true or false.
ATTACH IF NOT EXISTS $path AS {alias} (ROW_GROUP_SIZE {row_group_size}, READ_ONLY {read_only});
