-- Create the migration history table when it does not exist yet, before the first migration
-- runs: one row per applied queries/migrations/NNNN_name.sql file, with the SHA-256 of its
-- text (rcaeval.store._migrations; docs/store.md "Schema and migrations").
-- {table}: rcaeval.store._migrations.MIGRATIONS_TABLE (schema_migrations), the name's one home.
CREATE TABLE IF NOT EXISTS {table} (
    version    INTEGER PRIMARY KEY,
    name       VARCHAR NOT NULL,
    checksum   VARCHAR NOT NULL,
    applied_at TIMESTAMPTZ NOT NULL
);
