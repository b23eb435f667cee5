-- Bucket: evidence_collection -- did the run collect enough evidence and cover the preferred
-- channels?
-- Decides:
--   fail     a required check fails;
--   partial  required checks pass but an optional check fails;
--   pass     every non-soft check passes;
--   not_evaluated  the bundle is unresolved.
-- Soft checks (rule_check.soft, by default attempted_events_collection_persisted) are a
-- score deduction only: they count in the score, and their failure never changes the
-- status (never partial, never fail), whatever their `required` says; the reason names them.
-- Score fraction: passed weight / weight of ALL checks (soft ones included).
-- Check rows and counts: bucket_checks / bucket_agg; the rules it shares with other buckets:
-- tiered_status / tiered_reason / required_frac (all in queries/judge/bucket_rows.sql).
CREATE OR REPLACE TEMP VIEW bk_evidence_collection_check AS
SELECT * FROM bucket_checks('evidence_collection', false);

CREATE OR REPLACE TEMP VIEW bk_evidence_collection AS
SELECT run_id, case_id, 'evidence_collection' AS bucket,
       CASE WHEN NOT resolved THEN 'not_evaluated'
            ELSE tiered_status(req_failed, opt_failed) END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            ELSE tiered_reason(req_failed, opt_failed, n_pass, n) END
           || soft_note AS reason,
       CASE WHEN NOT resolved THEN NULL
            WHEN w_all > 0 THEN w_pass / w_all ELSE 1.0 END AS frac,
       NULL::DOUBLE AS frac_hard, NULL::DOUBLE AS frac_supporting
FROM bucket_agg('evidence_collection', false);
