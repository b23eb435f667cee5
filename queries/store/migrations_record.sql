-- Record one applied migration, in the transaction that ran it
-- (rcaeval.store._migrations.apply_migration).
-- {table}: rcaeval.store._migrations.MIGRATIONS_TABLE (schema_migrations).
-- Params ?: version, name, checksum (SHA-256 of the file's text), applied_at (now, UTC).
INSERT INTO {table} (version, name, checksum, applied_at) VALUES (?, ?, ?, ?);
