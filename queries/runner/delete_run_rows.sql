-- Drop a whole run: delete its rows from one table with a run_id column (case_tables.sql with
-- $all = true, eval_runs and eval_case_runs included); rcaeval demo replaces its runs this way.
-- {table}: the table, as case_tables.sql names it. Param: $run_id.
DELETE FROM {table} WHERE run_id = $run_id;
