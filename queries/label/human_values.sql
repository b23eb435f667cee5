-- What people said, item by item (docs/calibration.md, "What is compared"): temp table
-- label_human, one row per (level, item, run_id, case_id, labeller) over label_effective.
-- Decides each labeller's value: the verdict as labelled; a bucket, check or detector as
-- written in the label's overrides (eval_label_item); the diagnosis bucket from
-- root_cause_correct and critical_evidence from evidence_adequate unless an override names
-- that bucket; a detector from an override of a check whose only condition is that detector
-- (a check that passes with `expect: true` means the detector fires). An explicit detector
-- override wins over one implied by a check; two checks implying different values for one
-- detector leave that detector without a value from this labeller.
CREATE OR REPLACE TEMP TABLE label_human AS
WITH explicit AS (
    SELECT i.level, i.item, e.run_id, e.case_id, e.labeller, i.value
    FROM label_effective e JOIN eval_label_item i ON i.label_id = e.label_id
), from_fields AS (
    SELECT 'bucket' AS level, f.bucket AS item, e.run_id, e.case_id, e.labeller,
           CASE WHEN f.ok THEN 'pass' ELSE 'fail' END AS value
    FROM label_effective e,
         LATERAL (VALUES ('diagnosis', e.root_cause_correct),
                         ('critical_evidence', e.evidence_adequate)) AS f(bucket, ok)
    WHERE f.ok IS NOT NULL
), single_detector AS (
    SELECT case_id, rules_hash, bucket || '.' || check_id AS item, any_value(name) AS detector,
           any_value(expect) AS expect
    FROM rule_condition
    GROUP BY case_id, rules_hash, bucket, check_id
    HAVING count(*) = 1 AND any_value(ctype) = 'detector'
), implied AS (
    SELECT 'detector' AS level, s.detector AS item, x.run_id, x.case_id, x.labeller,
           CASE WHEN (x.value = 'pass') = s.expect THEN 'fires' ELSE 'silent' END AS value
    FROM explicit x
    JOIN case_meta m ON m.run_id = x.run_id AND m.case_id = x.case_id
    JOIN single_detector s ON s.case_id = x.case_id AND s.rules_hash = m.rules_hash
                          AND s.item = x.item
    WHERE x.level = 'check'
), candidates AS (
    SELECT *, 0 AS rank FROM explicit
    UNION ALL
    SELECT *, 1 AS rank FROM from_fields
    UNION ALL
    SELECT *, 1 AS rank FROM implied
    UNION ALL
    SELECT 'verdict', 'verdict', run_id, case_id, labeller, verdict, 0
    FROM label_effective WHERE verdict IS NOT NULL
), best AS (
    SELECT * FROM candidates
    QUALIFY rank = min(rank) OVER (PARTITION BY level, item, run_id, case_id, labeller)
)
SELECT level, item, run_id, case_id, labeller, any_value(value) AS value
FROM best
GROUP BY level, item, run_id, case_id, labeller
HAVING count(DISTINCT value) = 1;
