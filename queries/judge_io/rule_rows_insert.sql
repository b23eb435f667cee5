-- Append one flattened rule table's rows (rcaeval.judge.flatten_rules) to rule table {table}
-- by column name (rcaeval.judge._load.load_rules, after rule_rows_delete.sql).
-- {table}: one of RULE_TABLES. {columns}: the Arrow table's columns, comma-separated.
-- {view}: the Arrow table's registered name (__rcaeval_in_<table>).
INSERT INTO {table} ({columns}) SELECT {columns} FROM {view};
