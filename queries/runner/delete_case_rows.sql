-- Resume / retry: delete one case run's rows from one table listed by case_tables.sql (facts,
-- checks, buckets, judgment, raw rows, case_meta ...), so the case can be run again from
-- scratch; runs in the transaction that also resets its eval_case_runs row (reset_case.sql).
-- {table}: the table, as case_tables.sql names it. Params: $run_id, $case_id.
DELETE FROM {table} WHERE run_id = $run_id AND case_id = $case_id;
