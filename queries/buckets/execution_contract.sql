-- Bucket: execution_contract -- the minimum-viability gate (seed 000 step 4): enough of the
-- intended workflow, artifacts and evidence channels to judge the run at all.
-- Decides: fail when a required check fails; partial when only optional checks fail; pass
-- when every check passes. An unresolved bundle adds the failing synthetic check
-- `bundle_resolved` (so: fail). Not scored.
CREATE OR REPLACE TEMP VIEW bk_execution_contract_check AS
SELECT run_id, case_id, bucket, check_id, kind, required, soft, weight, ord, passed, reason,
       evidence_file, evidence_path, evidence_line, evidence_excerpt
FROM j_check_eval
WHERE bucket = 'execution_contract'
UNION ALL
SELECT run_id, case_id, 'execution_contract', 'bundle_resolved', 'check', true, false, 0.0, -1,
       false, 'failed: ' || bundle_status || ': ' || coalesce(bundle_reason, ''),
       NULL, NULL, NULL, NULL
FROM j_scope
WHERE NOT resolved;

CREATE OR REPLACE TEMP VIEW bk_execution_contract AS
WITH a AS (
    SELECT k.run_id, k.case_id,
           count(c.check_id) AS n,
           count(c.check_id) FILTER (WHERE c.passed) AS n_pass,
           string_agg(c.check_id, ', ' ORDER BY c.ord)
               FILTER (WHERE c.required AND NOT c.soft AND NOT c.passed) AS req_failed,
           string_agg(c.check_id, ', ' ORDER BY c.ord)
               FILTER (WHERE NOT (c.required AND NOT c.soft) AND NOT c.passed) AS opt_failed
    FROM j_scope AS k
    LEFT JOIN bk_execution_contract_check AS c
           ON c.run_id = k.run_id AND c.case_id = k.case_id
    GROUP BY k.run_id, k.case_id
)
SELECT run_id, case_id, 'execution_contract' AS bucket,
       CASE WHEN req_failed IS NOT NULL THEN 'fail'
            WHEN opt_failed IS NOT NULL THEN 'partial'
            ELSE 'pass' END AS status,
       CASE WHEN req_failed IS NOT NULL THEN 'required check(s) failed: ' || req_failed
            WHEN opt_failed IS NOT NULL THEN 'optional check(s) failed: ' || opt_failed
            ELSE n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed' END AS reason,
       NULL::DOUBLE AS frac, NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM a;
