-- Stage-3 facts: the execution-contract facts.
--   contract.required_workflow_present           every required workflow check passed
--                                                 (j_wf_check: the evaluated workflow checks;
--                                                 a soft one is score only, left out)
--   contract.required_artifacts_present          manifest, report and evidence dir present
--   contract.preferred_channels_minimum_observed >= min_preferred_channels observed
--   contract.preferred_channels_all_observed     every preferred channel observed
-- Preferred channels come from judge.evidence_collection (rule_bucket_param); a channel c is
-- observed when fact channel.<c>_observed is true.
CREATE OR REPLACE TEMP VIEW fact_contract AS
WITH wf AS (
    SELECT k.run_id, k.case_id,
           count(w.check_id) FILTER (WHERE w.required AND NOT w.soft AND NOT w.passed)
               AS n_failed,
           count(w.check_id) FILTER (WHERE w.required AND NOT w.soft) AS n_required,
           string_agg(w.check_id, ', ' ORDER BY w.ord)
               FILTER (WHERE w.required AND NOT w.soft AND NOT w.passed) AS failed
    FROM j_scope AS k
    LEFT JOIN j_wf_check AS w ON w.run_id = k.run_id AND w.case_id = k.case_id
    GROUP BY k.run_id, k.case_id
),
art AS (
    SELECT run_id, case_id,
           bool_or(value) FILTER (WHERE fact = 'artifacts.manifest_present') AS manifest,
           bool_or(value) FILTER (WHERE fact = 'artifacts.report_present') AS report
    FROM j_fact
    WHERE fact IN ('artifacts.manifest_present', 'artifacts.report_present')
    GROUP BY run_id, case_id
),
ch AS (
    SELECT k.run_id, k.case_id, p.min_preferred_channels AS min_n,
           len(p.preferred_channels) AS n_pref,
           count(f.fact) FILTER (WHERE f.value) AS n_obs,
           coalesce(string_agg(c.channel, ', ' ORDER BY c.pos) FILTER (WHERE f.value), '')
               AS observed,
           coalesce(string_agg(c.channel, ', ' ORDER BY c.pos)
                        FILTER (WHERE NOT coalesce(f.value, false)), '') AS missing
    FROM j_scope AS k
    JOIN rule_bucket_param AS p ON p.case_id = k.case_id AND p.rules_hash = k.rules_hash
    LEFT JOIN (
        SELECT p2.case_id, p2.rules_hash, unnest(p2.preferred_channels) AS channel,
               generate_subscripts(p2.preferred_channels, 1) AS pos
        FROM rule_bucket_param AS p2
    ) AS c ON c.case_id = p.case_id AND c.rules_hash = p.rules_hash
    LEFT JOIN j_fact AS f
           ON f.run_id = k.run_id AND f.case_id = k.case_id
          AND f.fact = 'channel.' || c.channel || '_observed'
    GROUP BY k.run_id, k.case_id, p.min_preferred_channels, len(p.preferred_channels)
)
SELECT run_id, case_id, 'contract.required_workflow_present' AS fact,
       n_failed = 0 AS value,
       CASE WHEN n_failed = 0
            THEN 'all ' || n_required::VARCHAR || ' required workflow check(s) passed'
            ELSE 'required workflow check(s) failed: ' || failed END AS detail,
       NULL::VARCHAR AS evidence_file, NULL::VARCHAR AS evidence_path,
       NULL::INTEGER AS evidence_line, NULL::VARCHAR AS evidence_excerpt
FROM wf
UNION ALL
SELECT k.run_id, k.case_id, 'contract.required_artifacts_present',
       coalesce(a.manifest AND a.report, false),
       CASE WHEN coalesce(a.manifest AND a.report, false)
            THEN 'manifest.json and the diagnosis report (evidences/) parsed'
            ELSE 'missing: ' || concat_ws(', ',
                     CASE WHEN NOT coalesce(a.manifest, false) THEN 'manifest.json' END,
                     CASE WHEN NOT coalesce(a.report, false)
                          THEN 'evidences/workspace_evidence_report.json' END) END,
       NULL, NULL, NULL, NULL
FROM j_scope AS k
LEFT JOIN art AS a ON a.run_id = k.run_id AND a.case_id = k.case_id
UNION ALL
SELECT run_id, case_id, 'contract.preferred_channels_minimum_observed', n_obs >= min_n,
       n_obs::VARCHAR || ' of ' || n_pref::VARCHAR || ' preferred channel(s) observed ('
           || CASE WHEN observed = '' THEN 'none' ELSE observed END || '); minimum '
           || min_n::VARCHAR,
       NULL, NULL, NULL, NULL
FROM ch
UNION ALL
SELECT run_id, case_id, 'contract.preferred_channels_all_observed', n_obs = n_pref,
       CASE WHEN n_obs = n_pref THEN 'every preferred channel observed (' || observed || ')'
            ELSE 'not observed: ' || missing END,
       NULL, NULL, NULL, NULL
FROM ch;
