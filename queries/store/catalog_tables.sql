-- The store's base tables: every table of the main schema, temporary tables and views left
-- out, sorted by name (rcaeval.store._sqlnames.base_tables, behind Store.tables()).
SELECT table_name
FROM duckdb_tables()
WHERE schema_name = 'main' AND NOT temporary
ORDER BY table_name;
