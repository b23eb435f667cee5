-- The column names of a Parquet file, in file order: Store.import_parquet checks them against
-- the target table's, and schema_migrations.parquet must have `version`. A file DuckDB cannot
-- read fails here (an InputError naming it).
-- Param ?: the file.
SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet(?));
