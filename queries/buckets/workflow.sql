-- Bucket: workflow -- did the agent perform the intended diagnosis workflow?
-- Decides:
--   pass     no required check fails;
--   partial  required checks fail but the run clearly progressed: the passed required
--            weight is at least half of the total required weight (soft checks, a score
--            deduction only, left out: bucket_rows.sql);
--   fail     required checks fail and less than half of the required weight passed;
--   not_evaluated  the bundle is unresolved.
-- Score fraction: passed REQUIRED weight / required weight (all checks when the
-- bucket has no required check; 1 when it has no checks at all).
-- Check rows and counts: bucket_checks / bucket_agg; the rules it shares with other buckets:
-- tiered_status / tiered_reason / required_frac (all in queries/judge/bucket_rows.sql).
CREATE OR REPLACE TEMP VIEW bk_workflow_check AS
SELECT * FROM bucket_checks('workflow', false);

CREATE OR REPLACE TEMP VIEW bk_workflow AS
SELECT run_id, case_id, 'workflow' AS bucket,
       CASE WHEN NOT resolved THEN 'not_evaluated'
            WHEN n_req_failed = 0 THEN 'pass'
            WHEN w_req_firm_pass * 2 >= w_req_firm THEN 'partial'
            ELSE 'fail' END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            WHEN n_req_failed = 0
                THEN n_pass::VARCHAR || '/' || n::VARCHAR || ' check(s) passed'
            ELSE 'required check(s) failed: ' || req_failed || '; '
                 || w_req_firm_pass::VARCHAR || ' of ' || w_req_firm::VARCHAR
                 || ' required weight passed'
                 || CASE WHEN w_req_firm_pass * 2 >= w_req_firm THEN ' (progressed: >= half)'
                         ELSE ' (< half: did not progress)' END END
           || soft_note AS reason,
       CASE WHEN NOT resolved THEN NULL
            ELSE required_frac(has_required, w_req, w_req_pass, w_all, w_pass) END AS frac,
       NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM bucket_agg('workflow', false);
