-- The primary-key columns of one main-schema table, one row holding the list of their names;
-- no row when the table has no primary key (rcaeval.store._sqlnames.primary_key: the frame
-- accessors order by it first).
-- Param ?: the table's name.
SELECT constraint_column_names
FROM duckdb_constraints()
WHERE schema_name = 'main' AND table_name = ? AND constraint_type = 'PRIMARY KEY';
