-- Bucket: execution_contract -- the minimum-viability gate: enough of the
-- intended workflow, artifacts and evidence channels to judge the run at all.
-- Decides: fail when a required check fails; partial when only optional checks fail; pass
-- when every check passes. An unresolved bundle adds the failing synthetic check
-- `bundle_resolved` (so: fail). Not scored.
-- Check rows and counts: bucket_checks / bucket_agg (queries/judge/bucket_rows.sql), as a gate.
CREATE OR REPLACE TEMP VIEW bk_execution_contract_check AS
SELECT * FROM bucket_checks('execution_contract', true);

CREATE OR REPLACE TEMP VIEW bk_execution_contract AS
SELECT run_id, case_id, 'execution_contract' AS bucket,
       CASE WHEN req_failed IS NOT NULL THEN 'fail'
            WHEN opt_failed IS NOT NULL THEN 'partial'
            ELSE 'pass' END AS status,
       CASE WHEN req_failed IS NOT NULL THEN 'required check(s) failed: ' || req_failed
            WHEN opt_failed IS NOT NULL THEN 'optional check(s) failed: ' || opt_failed
            ELSE n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed' END AS reason,
       NULL::DOUBLE AS frac, NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM bucket_agg('execution_contract', true);
