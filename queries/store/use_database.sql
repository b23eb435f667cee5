-- Make the attached store file this connection's default catalog (rcaeval.store._connect),
-- so unqualified names and current_database() mean the store, as when DuckDB opens the file
-- itself. {alias}: the catalog name (quoted).
USE {alias};
