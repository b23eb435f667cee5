-- The columns of one main-schema table, (column_name, data_type) in declaration order; no row
-- when there is no such table (rcaeval.store._sqlnames.table_columns).
-- Param ?: the table's name.
SELECT column_name, data_type
FROM duckdb_columns()
WHERE schema_name = 'main' AND table_name = ?
ORDER BY column_index;
