-- Verdicts: a fixed precedence over the bucket statuses, then banding (docs/scoring.md).
-- Step 0 (before rules 1-11): an unresolved bundle is invalid, subtype = raw_bundle.status
-- (bundle_missing / bundle_ambiguous / extract_error). Then, first match wins:
--    1 contract = fail                         -> invalid  contract_fail
--    2 execution_contract = fail               -> invalid  execution_contract_fail
--    3 workflow in (fail, partial)             -> invalid  workflow_incomplete
--    4 evidence_collection = fail              -> invalid  evidence_collection_fail
--    5 evidence_collection = partial           -> fail     evidence_collection_partial
--    6 critical_evidence = fail                -> fail     critical_evidence_fail
--    7 critical_evidence = partial             -> fail     critical_evidence_partial
--    8 evidence_routing = fail                 -> fail     evidence_routing_fail
--    9 evidence_routing = partial              -> fail     evidence_routing_partial
--   10 diagnosis = pass                        -> pass     diagnosis_pass
--   11 otherwise                               -> fail     diagnosis_fail
-- raw_score = sum of bucket scores. Banding: invalid -> 0; hard gate (critical_evidence pass
-- AND diagnosis pass) -> max(raw, gate_floor); else min(raw, no_gate_ceiling).
-- Inputs: bucket_scored, j_scope, j_band(profile, gate_floor, no_gate_ceiling).
CREATE OR REPLACE TEMP VIEW verdict_step AS
SELECT * FROM (VALUES
    (0, 'bundle_missing', 'invalid', NULL),
    (0, 'bundle_ambiguous', 'invalid', NULL),
    (0, 'extract_error', 'invalid', NULL),
    (1, 'contract_fail', 'invalid', 'contract'),
    (2, 'execution_contract_fail', 'invalid', 'execution_contract'),
    (3, 'workflow_incomplete', 'invalid', 'workflow'),
    (4, 'evidence_collection_fail', 'invalid', 'evidence_collection'),
    (5, 'evidence_collection_partial', 'fail', 'evidence_collection'),
    (6, 'critical_evidence_fail', 'fail', 'critical_evidence'),
    (7, 'critical_evidence_partial', 'fail', 'critical_evidence'),
    (8, 'evidence_routing_fail', 'fail', 'evidence_routing'),
    (9, 'evidence_routing_partial', 'fail', 'evidence_routing'),
    (10, 'diagnosis_pass', 'pass', 'diagnosis'),
    (11, 'diagnosis_fail', 'fail', 'diagnosis')
) AS t(step, subtype, verdict, bucket);

CREATE OR REPLACE TEMP VIEW verdict AS
WITH p AS (
    SELECT run_id, case_id,
           max(status) FILTER (WHERE bucket = 'contract') AS contract,
           max(status) FILTER (WHERE bucket = 'execution_contract') AS execution_contract,
           max(status) FILTER (WHERE bucket = 'workflow') AS workflow,
           max(status) FILTER (WHERE bucket = 'evidence_collection') AS evidence_collection,
           max(status) FILTER (WHERE bucket = 'critical_evidence') AS critical_evidence,
           max(status) FILTER (WHERE bucket = 'evidence_routing') AS evidence_routing,
           max(status) FILTER (WHERE bucket = 'diagnosis') AS diagnosis,
           round(sum(coalesce(score, 0)), 4) AS raw_score
    FROM bucket_scored
    GROUP BY run_id, case_id
),
d AS (
    SELECT k.run_id, k.case_id, k.case_type, k.scoring_profile, k.rules_hash,
           k.bundle_status, k.bundle_reason, p.*  EXCLUDE (run_id, case_id),
           CASE
               WHEN NOT k.resolved THEN
                   CASE WHEN k.bundle_status IN ('bundle_ambiguous', 'extract_error')
                        THEN k.bundle_status ELSE 'bundle_missing' END
               WHEN p.contract = 'fail' THEN 'contract_fail'
               WHEN p.execution_contract = 'fail' THEN 'execution_contract_fail'
               WHEN p.workflow IN ('fail', 'partial') THEN 'workflow_incomplete'
               WHEN p.evidence_collection = 'fail' THEN 'evidence_collection_fail'
               WHEN p.evidence_collection = 'partial' THEN 'evidence_collection_partial'
               WHEN p.critical_evidence = 'fail' THEN 'critical_evidence_fail'
               WHEN p.critical_evidence = 'partial' THEN 'critical_evidence_partial'
               WHEN p.evidence_routing = 'fail' THEN 'evidence_routing_fail'
               WHEN p.evidence_routing = 'partial' THEN 'evidence_routing_partial'
               WHEN p.diagnosis = 'pass' THEN 'diagnosis_pass'
               ELSE 'diagnosis_fail'
           END AS subtype,
           coalesce(p.critical_evidence = 'pass' AND p.diagnosis = 'pass', false) AS hard_gate
    FROM j_scope AS k
    JOIN p ON p.run_id = k.run_id AND p.case_id = k.case_id
)
SELECT d.run_id, d.case_id, s.verdict, d.subtype, s.step,
       CASE WHEN s.verdict = 'invalid' THEN 0.0
            WHEN d.hard_gate THEN greatest(d.raw_score, b.gate_floor)
            ELSE least(d.raw_score, b.no_gate_ceiling) END AS score,
       d.raw_score, d.hard_gate, d.case_type, d.scoring_profile, d.rules_hash,
       d.subtype || ': ' || coalesce(CASE WHEN s.step = 0 THEN d.bundle_reason
                                          ELSE bs.reason END, '') AS reason,
       d.contract, d.execution_contract, d.workflow, d.evidence_collection,
       d.critical_evidence, d.evidence_routing, d.diagnosis
FROM d
JOIN verdict_step AS s ON s.subtype = d.subtype
LEFT JOIN j_band AS b ON b.profile = d.scoring_profile
LEFT JOIN bucket_scored AS bs
       ON bs.run_id = d.run_id AND bs.case_id = d.case_id AND bs.bucket = s.bucket;
