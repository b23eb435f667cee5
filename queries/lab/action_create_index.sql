-- apply_action create_index: one b-tree index on one column of a lab table (the names are
-- checked against action_columns.sql and passed as psql variables, quoted as identifiers).
CREATE INDEX IF NOT EXISTS :"index_name" ON :"table_name" (:"column_name");
