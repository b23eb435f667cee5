-- Bucket: evidence_routing -- is the structured evidence map (analysis_patch.json) well-formed
-- and resolvable against the evidence actually collected (seed 000 step 7)?
-- Decides:
--   fail     a required check fails;
--   partial  required checks pass but an optional check fails;
--   pass     every check passes;
--   not_evaluated  the bundle is unresolved.
-- Score fraction (seed 000): passed REQUIRED weight / required weight (all checks when the
-- bucket has no required check; 1 when it has no checks at all).
CREATE OR REPLACE TEMP VIEW bk_evidence_routing_check AS
SELECT e.run_id, e.case_id, e.bucket, e.check_id, e.kind, e.required, e.soft, e.weight, e.ord,
       e.passed, e.reason, e.evidence_file, e.evidence_path, e.evidence_line,
       e.evidence_excerpt
FROM j_check_eval AS e
JOIN j_scope AS k ON k.run_id = e.run_id AND k.case_id = e.case_id
WHERE e.bucket = 'evidence_routing' AND k.resolved;

CREATE OR REPLACE TEMP VIEW bk_evidence_routing AS
WITH a AS (
    SELECT k.run_id, k.case_id, k.resolved,
           count(c.check_id) AS n,
           count(c.check_id) FILTER (WHERE c.passed) AS n_pass,
           coalesce(sum(c.weight) FILTER (WHERE c.required), 0) AS w_req,
           coalesce(sum(c.weight) FILTER (WHERE c.required AND c.passed), 0) AS w_req_pass,
           coalesce(sum(c.weight), 0) AS w_all,
           coalesce(sum(c.weight) FILTER (WHERE c.passed), 0) AS w_pass,
           bool_or(c.required) AS has_required,
           string_agg(c.check_id, ', ' ORDER BY c.ord)
               FILTER (WHERE c.required AND NOT c.soft AND NOT c.passed) AS req_failed,
           string_agg(c.check_id, ', ' ORDER BY c.ord)
               FILTER (WHERE NOT (c.required AND NOT c.soft) AND NOT c.passed) AS opt_failed
    FROM j_scope AS k
    LEFT JOIN bk_evidence_routing_check AS c
           ON c.run_id = k.run_id AND c.case_id = k.case_id
    GROUP BY k.run_id, k.case_id, k.resolved
)
SELECT run_id, case_id, 'evidence_routing' AS bucket,
       CASE WHEN NOT resolved THEN 'not_evaluated'
            WHEN req_failed IS NOT NULL THEN 'fail'
            WHEN opt_failed IS NOT NULL THEN 'partial'
            ELSE 'pass' END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            WHEN req_failed IS NOT NULL THEN 'required check(s) failed: ' || req_failed
            WHEN opt_failed IS NOT NULL THEN 'optional check(s) failed: ' || opt_failed
            ELSE n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed' END AS reason,
       CASE WHEN NOT resolved THEN NULL
            WHEN coalesce(has_required, false) AND w_req > 0 THEN w_req_pass / w_req
            WHEN w_all > 0 THEN w_pass / w_all
            ELSE 1.0 END AS frac,
       NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM a;
