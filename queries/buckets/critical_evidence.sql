-- Bucket: critical_evidence -- did the collected artifacts contain the critical symptom /
-- mechanism evidence? Independent of the answer's wording.
-- Decides:
--   pass     every non-soft check passes (also when the bucket has none);
--   partial  some, not all, non-soft checks pass;
--   fail     no non-soft check passes, or the evidence is forged (queries/facts/integrity.sql,
--            fx_forged_evidence: the bucket fails whatever its checks found, frac 0);
--   a soft check is a score deduction only (bucket_rows.sql), named in the reason;
--   not_evaluated  the bundle is unresolved.
-- Score fraction: passed weight / weight of all checks.
-- Check rows and counts: bucket_checks / bucket_agg (queries/judge/bucket_rows.sql).
CREATE OR REPLACE TEMP VIEW bk_critical_evidence_check AS
SELECT * FROM bucket_checks('critical_evidence', false);

CREATE OR REPLACE TEMP VIEW bk_critical_evidence AS
SELECT a.run_id, a.case_id, 'critical_evidence' AS bucket,
       CASE WHEN NOT resolved THEN 'not_evaluated'
            WHEN f.n_forged IS NOT NULL THEN 'fail'
            WHEN a.n_firm_pass = a.n_firm THEN 'pass'
            WHEN a.n_firm_pass > 0 THEN 'partial'
            ELSE 'fail' END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            WHEN f.n_forged IS NOT NULL THEN f.reason
            WHEN a.n_firm_pass = a.n_firm
                THEN n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed'
            ELSE n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed; missing: '
                 || failed END
           || soft_note AS reason,
       CASE WHEN NOT resolved THEN NULL
            WHEN f.n_forged IS NOT NULL THEN 0.0
            WHEN w_all > 0 THEN w_pass / w_all ELSE 1.0 END AS frac,
       NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM bucket_agg('critical_evidence', false) AS a
LEFT JOIN fx_forged_evidence AS f ON f.run_id = a.run_id AND f.case_id = a.case_id;
