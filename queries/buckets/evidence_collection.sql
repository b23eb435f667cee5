-- Bucket: evidence_collection -- did the run collect enough evidence and cover the preferred
-- channels (seed 000 step 5)?
-- Decides:
--   fail     a required check fails;
--   partial  required checks pass but an optional or soft check fails;
--   pass     every check passes;
--   not_evaluated  the bundle is unresolved.
-- Soft checks (rule_check.soft; the seed's attempted_events_collection_persisted) are a
-- score deduction only: they count in the score, and their failure never makes the bucket
-- fail (at most partial), whatever their `required` says.
-- Score fraction: passed weight / weight of ALL checks (soft ones included).
CREATE OR REPLACE TEMP VIEW bk_evidence_collection_check AS
SELECT e.run_id, e.case_id, e.bucket, e.check_id, e.kind, e.required, e.soft, e.weight, e.ord,
       e.passed, e.reason, e.evidence_file, e.evidence_path, e.evidence_line,
       e.evidence_excerpt
FROM j_check_eval AS e
JOIN j_scope AS k ON k.run_id = e.run_id AND k.case_id = e.case_id
WHERE e.bucket = 'evidence_collection' AND k.resolved;

CREATE OR REPLACE TEMP VIEW bk_evidence_collection AS
WITH a AS (
    SELECT k.run_id, k.case_id, k.resolved,
           count(c.check_id) AS n,
           count(c.check_id) FILTER (WHERE c.passed) AS n_pass,
           coalesce(sum(c.weight), 0) AS w_all,
           coalesce(sum(c.weight) FILTER (WHERE c.passed), 0) AS w_pass,
           string_agg(c.check_id, ', ' ORDER BY c.ord)
               FILTER (WHERE c.required AND NOT c.soft AND NOT c.passed) AS req_failed,
           string_agg(c.check_id || CASE WHEN c.soft THEN ' (soft)' ELSE '' END, ', '
                      ORDER BY c.ord)
               FILTER (WHERE NOT (c.required AND NOT c.soft) AND NOT c.passed) AS opt_failed
    FROM j_scope AS k
    LEFT JOIN bk_evidence_collection_check AS c
           ON c.run_id = k.run_id AND c.case_id = k.case_id
    GROUP BY k.run_id, k.case_id, k.resolved
)
SELECT run_id, case_id, 'evidence_collection' AS bucket,
       CASE WHEN NOT resolved THEN 'not_evaluated'
            WHEN req_failed IS NOT NULL THEN 'fail'
            WHEN opt_failed IS NOT NULL THEN 'partial'
            ELSE 'pass' END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            WHEN req_failed IS NOT NULL THEN 'required check(s) failed: ' || req_failed
            WHEN opt_failed IS NOT NULL THEN 'optional check(s) failed: ' || opt_failed
            ELSE n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed' END AS reason,
       CASE WHEN NOT resolved THEN NULL
            WHEN w_all > 0 THEN w_pass / w_all ELSE 1.0 END AS frac,
       NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM a;
