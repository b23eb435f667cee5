-- The names of the store's own (not TEMP) tables: write_results deletes a judged pass's rows
-- from the semantic shadow's tables only where they exist (a store migrated before 0003 has
-- none). Decides nothing.
SELECT table_name FROM duckdb_tables() WHERE NOT temporary;
