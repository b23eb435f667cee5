-- The workflow checks, evaluated before stage 3: contract.required_workflow_present
-- (facts/contract.sql) is decided by whether every required workflow check passed, so the
-- workflow rows of check_eval (judge/conditions.sql) are fixed in j_wf_check first.
CREATE OR REPLACE TEMP TABLE j_wf_check AS
SELECT * FROM check_eval WHERE bucket = 'workflow';
