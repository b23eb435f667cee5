-- The judged keys when the caller names none: every (run, case) with a case_meta row and
-- extracted raw rows (the runner records case_meta for every case it starts, also for cases
-- that errored before leaving a bundle: those have nothing to judge).
CREATE OR REPLACE TEMP TABLE j_keys AS
SELECT DISTINCT m.run_id, m.case_id
FROM case_meta AS m
SEMI JOIN raw_bundle AS b ON b.run_id = m.run_id AND b.case_id = m.case_id;
