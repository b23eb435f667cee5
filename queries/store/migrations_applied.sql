-- The migrations applied to this store, oldest first: (version, name, checksum, applied_at),
-- which rcaeval.store._migrations.plan_migrations checks against the files on disk and
-- Store.migrations() returns.
-- {table}: rcaeval.store._migrations.MIGRATIONS_TABLE (schema_migrations).
SELECT version, name, checksum, applied_at FROM {table} ORDER BY version;
