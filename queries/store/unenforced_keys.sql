-- The keys DuckDB does not enforce: the judge's per-check detail tables have no PRIMARY KEY
-- (migration 0022; a unique index over them cost 10-23% of a judge's CPU), but each row is
-- still identified by these columns, the table's leading ones. The judge's writer keeps them
-- unique (it deletes a chunk's (run, case) rows before inserting them); Store.write_frame and
-- Store.import_parquet refuse a write that would duplicate one (queries/store/duplicate_keys.sql),
-- `rcaeval doctor` checks the whole store, and Store.table() orders by them first, as it does
-- by a declared primary key. One row per table: (table_name, key_columns).
SELECT table_name, key_columns
FROM (VALUES
    ('eval_fact',            ['run_id', 'case_id', 'fact']),
    ('eval_check',           ['run_id', 'case_id', 'bucket', 'check_id']),
    ('eval_bucket',          ['run_id', 'case_id', 'bucket']),
    ('eval_detector_hit',    ['run_id', 'case_id', 'detector_id', 'section_idx', 'sentence_idx']),
    ('eval_trajectory_tool', ['run_id', 'case_id', 'tool'])
) AS k(table_name, key_columns)
ORDER BY table_name;
