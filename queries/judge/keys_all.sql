-- The judged keys when the caller names none: every (run, case) with a case_meta row.
CREATE OR REPLACE TEMP TABLE j_keys AS
SELECT DISTINCT run_id, case_id FROM case_meta;
