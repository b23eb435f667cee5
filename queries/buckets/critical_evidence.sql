-- Bucket: critical_evidence -- did the collected artifacts contain the critical symptom /
-- mechanism evidence (seed 000 step 6)? Independent of the answer's wording.
-- Decides:
--   pass     every check passes (also when the bucket has no checks);
--   partial  some, not all, checks pass;
--   fail     no check passes;
--   not_evaluated  the bundle is unresolved.
-- Score fraction: passed weight / weight of all checks.
CREATE OR REPLACE TEMP VIEW bk_critical_evidence_check AS
SELECT e.run_id, e.case_id, e.bucket, e.check_id, e.kind, e.required, e.soft, e.weight, e.ord,
       e.passed, e.reason, e.evidence_file, e.evidence_path, e.evidence_line,
       e.evidence_excerpt
FROM j_check_eval AS e
JOIN j_scope AS k ON k.run_id = e.run_id AND k.case_id = e.case_id
WHERE e.bucket = 'critical_evidence' AND k.resolved;

CREATE OR REPLACE TEMP VIEW bk_critical_evidence AS
WITH a AS (
    SELECT k.run_id, k.case_id, k.resolved,
           count(c.check_id) AS n,
           count(c.check_id) FILTER (WHERE c.passed) AS n_pass,
           coalesce(sum(c.weight), 0) AS w_all,
           coalesce(sum(c.weight) FILTER (WHERE c.passed), 0) AS w_pass,
           string_agg(c.check_id, ', ' ORDER BY c.ord) FILTER (WHERE NOT c.passed) AS failed
    FROM j_scope AS k
    LEFT JOIN bk_critical_evidence_check AS c
           ON c.run_id = k.run_id AND c.case_id = k.case_id
    GROUP BY k.run_id, k.case_id, k.resolved
)
SELECT run_id, case_id, 'critical_evidence' AS bucket,
       CASE WHEN NOT resolved THEN 'not_evaluated'
            WHEN n_pass = n THEN 'pass'
            WHEN n_pass > 0 THEN 'partial'
            ELSE 'fail' END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            WHEN n_pass = n THEN n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed'
            ELSE n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed; missing: '
                 || failed END AS reason,
       CASE WHEN NOT resolved THEN NULL
            WHEN w_all > 0 THEN w_pass / w_all ELSE 1.0 END AS frac,
       NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM a;
