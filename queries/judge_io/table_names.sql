-- Every table the connection sees (any database or schema, temporary ones too), by name: the
-- judge checks that the store has its tables (case_meta, raw_bundle, rule_check, eval_fact,
-- eval_judgment) before judging, else an InputError says to open it with
-- rcaeval.store.connect() (rcaeval.judge._audit._require_schema).
SELECT table_name FROM duckdb_tables();
