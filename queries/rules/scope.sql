-- The judging scope: one row per (run_id, case_id) being judged, with its case metadata
-- (case_meta, filled from the registry when judging) and its bundle resolution (raw_bundle).
-- Every fact, check and bucket query joins j_scope, so one judging pass touches only the runs
-- it judges, all of them at once. Input: the temp table j_keys(run_id, case_id).
CREATE OR REPLACE TEMP TABLE j_scope AS
SELECT
    m.run_id,
    m.case_id,
    m.case_type,
    m.cluster_id,
    m.window_start,
    m.window_end,
    coalesce(m.tolerance_s, 0) AS tolerance_s,
    m.rules_hash,
    coalesce(m.scoring_profile, p.scoring_profile, 'default') AS scoring_profile,
    coalesce(b.status, 'bundle_missing') AS bundle_status,
    coalesce(
        b.reason,
        CASE WHEN b.status IS NULL THEN 'no bundle was extracted for this case run' END
    ) AS bundle_reason,
    b.case_dir,
    b.bundle_dir,
    b.workspace_id,
    b.manifest_status,
    coalesce(b.status = 'resolved', false) AS resolved
FROM case_meta AS m
JOIN j_keys AS k ON k.run_id = m.run_id AND k.case_id = m.case_id
LEFT JOIN raw_bundle AS b ON b.run_id = m.run_id AND b.case_id = m.case_id
LEFT JOIN rule_bucket_param AS p ON p.case_id = m.case_id AND p.rules_hash = m.rules_hash;
