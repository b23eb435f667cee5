-- Bucket: execution_contract -- the minimum-viability gate: enough of the
-- intended workflow, artifacts and evidence channels to judge the run at all.
-- Decides: fail when a required check fails; partial when only optional checks fail; pass
-- when every check passes. An unresolved bundle adds the failing synthetic check
-- `bundle_resolved` (so: fail). Not scored.
-- Check rows and counts: bucket_checks / bucket_agg, as a gate; the rule it shares with other
-- buckets: tiered_status / tiered_reason (all in queries/judge/bucket_rows.sql).
CREATE OR REPLACE TEMP VIEW bk_execution_contract_check AS
SELECT * FROM bucket_checks('execution_contract', true);

CREATE OR REPLACE TEMP VIEW bk_execution_contract AS
SELECT run_id, case_id, 'execution_contract' AS bucket,
       tiered_status(req_failed, opt_failed) AS status,
       tiered_reason(req_failed, opt_failed, n_pass, n) AS reason,
       NULL::DOUBLE AS frac, NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM bucket_agg('execution_contract', true);
