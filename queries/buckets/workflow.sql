-- Bucket: workflow -- did the agent perform the intended diagnosis workflow (seed 000 step 3)?
-- Decides:
--   pass     no required check fails;
--   partial  required checks fail but the run clearly progressed: the passed required
--            weight is at least half of the total required weight;
--   fail     required checks fail and less than half of the required weight passed;
--   not_evaluated  the bundle is unresolved.
-- Score fraction (seed 000): passed REQUIRED weight / required weight (all checks when the
-- bucket has no required check; 1 when it has no checks at all).
CREATE OR REPLACE TEMP VIEW bk_workflow_check AS
SELECT e.run_id, e.case_id, e.bucket, e.check_id, e.kind, e.required, e.soft, e.weight, e.ord,
       e.passed, e.reason, e.evidence_file, e.evidence_path, e.evidence_line,
       e.evidence_excerpt
FROM j_check_eval AS e
JOIN j_scope AS k ON k.run_id = e.run_id AND k.case_id = e.case_id
WHERE e.bucket = 'workflow' AND k.resolved;

CREATE OR REPLACE TEMP VIEW bk_workflow AS
WITH a AS (
    SELECT k.run_id, k.case_id, k.resolved,
           count(c.check_id) AS n,
           count(c.check_id) FILTER (WHERE c.passed) AS n_pass,
           coalesce(sum(c.weight) FILTER (WHERE c.required), 0) AS w_req,
           coalesce(sum(c.weight) FILTER (WHERE c.required AND c.passed), 0) AS w_req_pass,
           coalesce(sum(c.weight), 0) AS w_all,
           coalesce(sum(c.weight) FILTER (WHERE c.passed), 0) AS w_pass,
           count(c.check_id) FILTER (WHERE c.required AND NOT c.soft AND NOT c.passed)
               AS n_req_failed,
           string_agg(c.check_id, ', ' ORDER BY c.ord)
               FILTER (WHERE c.required AND NOT c.soft AND NOT c.passed) AS req_failed,
           bool_or(c.required) AS has_required
    FROM j_scope AS k
    LEFT JOIN bk_workflow_check AS c ON c.run_id = k.run_id AND c.case_id = k.case_id
    GROUP BY k.run_id, k.case_id, k.resolved
)
SELECT run_id, case_id, 'workflow' AS bucket,
       CASE WHEN NOT resolved THEN 'not_evaluated'
            WHEN n_req_failed = 0 THEN 'pass'
            WHEN w_req_pass * 2 >= w_req THEN 'partial'
            ELSE 'fail' END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            WHEN n_req_failed = 0
                THEN n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed'
            ELSE 'required check(s) failed: ' || req_failed || '; '
                 || w_req_pass::VARCHAR || ' of ' || w_req::VARCHAR
                 || ' required weight passed'
                 || CASE WHEN w_req_pass * 2 >= w_req THEN ' (progressed: >= half)'
                         ELSE ' (< half: did not progress)' END END AS reason,
       CASE WHEN NOT resolved THEN NULL
            WHEN coalesce(has_required, false) AND w_req > 0 THEN w_req_pass / w_req
            WHEN w_all > 0 THEN w_pass / w_all
            ELSE 1.0 END AS frac,
       NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM a;
