-- Whether the migration history table exists yet: 1 (yes) or 0 in a fresh store
-- (rcaeval.store._migrations.has_migrations_table; a temporary table of the name counts too).
-- Param ?: the table's name, rcaeval.store._migrations.MIGRATIONS_TABLE.
SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ?;
