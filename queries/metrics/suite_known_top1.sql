-- metric: suite_known_top1
-- kind: rate
-- reads: eval_judgment, case_meta, rule_truth, rule_detector, eval_fact
-- numerator: known cases of the run whose answer names the registry's ground-truth family
--   and no other family: the case's asserts_<family> detector for the ground-truth family
--   fired (root-cause scope, negation-aware) and no other asserts_* detector of the case did
-- denominator: every judged known case of the run whose judged case version has a
--   ground-truth family (rule_truth), whatever its verdict (an invalid run names nothing)
-- rows: one row per (run, case) in eval_judgment for run $run_id with case_type 'known',
--   joined to its rule version through case_meta.rules_hash; cases judged before rule_truth
--   existed (no row) are not counted until re-judged
-- params: $run_id
WITH known AS (
    SELECT j.run_id, j.case_id, m.rules_hash, t.family
    FROM eval_judgment j
    JOIN case_meta m USING (run_id, case_id)
    JOIN rule_truth t ON t.case_id = j.case_id AND t.rules_hash = m.rules_hash
    WHERE j.run_id = $run_id AND j.case_type = 'known'
),
named AS (
    SELECT k.case_id, substr(d.detector_id, length('asserts_') + 1) AS family
    FROM known k
    JOIN rule_detector d ON d.case_id = k.case_id AND d.rules_hash = k.rules_hash
        AND starts_with(d.detector_id, 'asserts_')
    JOIN eval_fact f ON f.run_id = k.run_id AND f.case_id = k.case_id
        AND f.fact = 'detector.' || d.detector_id AND f.value
)
SELECT count(*) FILTER (WHERE hit) AS numerator, count(*) AS denominator
FROM (
    SELECT k.case_id,
           coalesce(bool_or(n.family = k.family) AND NOT bool_or(n.family <> k.family),
                    false) AS hit
    FROM known k LEFT JOIN named n USING (case_id)
    GROUP BY k.case_id, k.family
)
