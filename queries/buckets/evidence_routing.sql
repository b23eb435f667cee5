-- Bucket: evidence_routing -- is the structured evidence map (analysis_patch.json) well-formed
-- and resolvable against the evidence actually collected?
-- Decides:
--   fail     a required check fails;
--   partial  required checks pass but an optional check fails;
--   pass     every non-soft check passes (a soft check is a score deduction only:
--            bucket_rows.sql);
--   not_evaluated  the bundle is unresolved.
-- Score fraction: passed REQUIRED weight / required weight (all checks when the
-- bucket has no required check; 1 when it has no checks at all).
-- Check rows and counts: bucket_checks / bucket_agg; the rules it shares with other buckets:
-- tiered_status / tiered_reason / required_frac (all in queries/judge/bucket_rows.sql).
CREATE OR REPLACE TEMP VIEW bk_evidence_routing_check AS
SELECT * FROM bucket_checks('evidence_routing', false);

CREATE OR REPLACE TEMP VIEW bk_evidence_routing AS
SELECT run_id, case_id, 'evidence_routing' AS bucket,
       CASE WHEN NOT resolved THEN 'not_evaluated'
            ELSE tiered_status(req_failed, opt_failed) END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            ELSE tiered_reason(req_failed, opt_failed, n_pass, n) END
           || soft_note AS reason,
       CASE WHEN NOT resolved THEN NULL
            ELSE required_frac(has_required, w_req, w_req_pass, w_all, w_pass) END AS frac,
       NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM bucket_agg('evidence_routing', false);
