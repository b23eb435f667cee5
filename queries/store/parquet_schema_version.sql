-- The schema version an export comes from: the highest version in its
-- schema_migrations.parquet (NULL when empty, read as 0). Store.import_parquet refuses an
-- export newer than the store and lets an older one lack later-added columns.
-- Param ?: the schema_migrations.parquet file.
SELECT max(version) FROM read_parquet(?);
