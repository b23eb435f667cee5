-- Bucket: contract -- the comparability gate (seed 000 step 2): is this run about the case's
-- cluster and incident window?
-- Decides: fail when any required check fails, else pass. An unresolved bundle adds the
-- failing synthetic check `bundle_resolved` (reason: raw_bundle's), so contract fails and the
-- verdict is invalid with subtype bundle_missing / bundle_ambiguous. Not scored.
CREATE OR REPLACE TEMP VIEW bk_contract_check AS
SELECT run_id, case_id, bucket, check_id, kind, required, soft, weight, ord, passed, reason,
       evidence_file, evidence_path, evidence_line, evidence_excerpt
FROM j_check_eval
WHERE bucket = 'contract'
UNION ALL
SELECT run_id, case_id, 'contract', 'bundle_resolved', 'check', true, false, 0.0, -1, false,
       'failed: ' || bundle_status || ': ' || coalesce(bundle_reason, ''),
       NULL, NULL, NULL, NULL
FROM j_scope
WHERE NOT resolved;

CREATE OR REPLACE TEMP VIEW bk_contract AS
SELECT k.run_id, k.case_id, 'contract' AS bucket,
       CASE WHEN count(c.check_id) FILTER (WHERE c.required AND NOT c.passed) > 0
            THEN 'fail' ELSE 'pass' END AS status,
       CASE WHEN count(c.check_id) FILTER (WHERE c.required AND NOT c.passed) > 0
            THEN 'required check(s) failed: '
                 || string_agg(c.check_id, ', ' ORDER BY c.ord)
                        FILTER (WHERE c.required AND NOT c.passed)
            ELSE count(c.check_id) FILTER (WHERE c.passed)::VARCHAR || '/'
                 || count(c.check_id)::VARCHAR || ' check(s) passed' END AS reason,
       NULL::DOUBLE AS frac, NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM j_scope AS k
LEFT JOIN bk_contract_check AS c ON c.run_id = k.run_id AND c.case_id = k.case_id
GROUP BY k.run_id, k.case_id;
