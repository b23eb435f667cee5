-- Bucket: contract -- the comparability gate: is this run about the case's
-- cluster and incident window?
-- Decides: fail when any required check fails, else pass. An unresolved bundle adds the
-- failing synthetic check `bundle_resolved` (reason: raw_bundle's), so contract fails and the
-- verdict is invalid with subtype bundle_missing / bundle_ambiguous. Not scored.
-- Check rows and counts: bucket_checks / bucket_agg (queries/judge/bucket_rows.sql), as a gate.
CREATE OR REPLACE TEMP VIEW bk_contract_check AS
SELECT * FROM bucket_checks('contract', true);

CREATE OR REPLACE TEMP VIEW bk_contract AS
SELECT run_id, case_id, 'contract' AS bucket,
       CASE WHEN req_failed_any IS NOT NULL THEN 'fail' ELSE 'pass' END AS status,
       CASE WHEN req_failed_any IS NOT NULL
            THEN 'required check(s) failed: ' || req_failed_any
            ELSE n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed' END AS reason,
       NULL::DOUBLE AS frac, NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM bucket_agg('contract', true);
