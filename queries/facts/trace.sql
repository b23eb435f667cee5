-- Trace facts: bundle.*, window.*, cluster.*, workflow.*, artifacts.*.
-- Inputs: the diagnosis report (metadata), manifest.json (fallback), telemetry, the file
-- inventory, the output sentences, and the case metadata in j_scope.
-- Output rows (run_id, case_id, fact, value, rank, detail, evidence_*): facts decided
-- explicitly carry value true/false; witness facts only their true rows (facts/base.sql
-- fills in false for facts with no witness).

-- The incident window the run states: report metadata first, manifest fallback.
CREATE OR REPLACE TEMP VIEW fx_window AS
WITH src AS (
    SELECT run_id, case_id, file,
           CASE WHEN file = 'manifest.json' THEN 2 ELSE 1 END AS pri,
           CASE WHEN file = 'manifest.json' THEN '$.time_window'
                ELSE '$.metadata.time_window' END AS base_path,
           max(value_text) FILTER (WHERE ends_with(path, '.start')) AS start_text,
           max(value_text) FILTER (WHERE ends_with(path, '.end')) AS end_text
    FROM fx_json
    WHERE type = 'string'
      AND ((file = 'evidences/workspace_evidence_report.json'
            AND path IN ('$.metadata.time_window.start', '$.metadata.time_window.end'))
        OR (file = 'manifest.json'
            AND path IN ('$.time_window.start', '$.time_window.end')))
    GROUP BY run_id, case_id, file
),
pick AS (
    SELECT * FROM src
    WHERE nullif(trim(start_text), '') IS NOT NULL AND nullif(trim(end_text), '') IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY run_id, case_id ORDER BY pri) = 1
)
SELECT k.run_id, k.case_id, p.file, p.base_path, p.start_text, p.end_text,
       try_cast(p.start_text AS TIMESTAMPTZ) AS ws,
       try_cast(p.end_text AS TIMESTAMPTZ) AS we,
       k.window_start, k.window_end, k.tolerance_s
FROM j_scope AS k
LEFT JOIN pick AS p ON p.run_id = k.run_id AND p.case_id = k.case_id;

-- The cluster id the run states: report metadata first, manifest fallback.
CREATE OR REPLACE TEMP VIEW fx_cluster AS
WITH src AS (
    SELECT run_id, case_id, file, path, trim(value_text) AS cluster,
           CASE WHEN file = 'manifest.json' THEN 2 ELSE 1 END AS pri
    FROM fx_json
    WHERE type = 'string' AND nullif(trim(value_text), '') IS NOT NULL
      AND ((file = 'evidences/workspace_evidence_report.json' AND path = '$.metadata.cluster_id')
        OR (file = 'manifest.json' AND path = '$.cluster_id'))
    QUALIFY row_number() OVER (PARTITION BY run_id, case_id ORDER BY pri) = 1
)
SELECT k.run_id, k.case_id, s.file, s.path, s.cluster, k.cluster_id AS expected
FROM j_scope AS k
LEFT JOIN src AS s ON s.run_id = k.run_id AND s.case_id = k.case_id;

CREATE OR REPLACE TEMP VIEW fx_trace AS
-- bundle.resolved
SELECT run_id, case_id, 'bundle.resolved' AS fact, resolved AS value, 0 AS rank,
       CASE WHEN resolved THEN 'exactly one run bundle resolved'
            ELSE bundle_status || ': ' || coalesce(bundle_reason, '') END AS detail,
       NULL::VARCHAR AS evidence_file, NULL::VARCHAR AS evidence_path,
       NULL::INTEGER AS evidence_line, NULL::VARCHAR AS evidence_excerpt
FROM j_scope

UNION ALL
-- window.present
SELECT run_id, case_id, 'window.present', file IS NOT NULL, 0,
       CASE WHEN file IS NOT NULL
            THEN 'incident window stated in ' || file || ' ' || base_path
            ELSE 'neither the report metadata nor the manifest states time_window.start/.end'
       END,
       file, base_path, NULL, start_text || ' .. ' || end_text
FROM fx_window

UNION ALL
-- window.matched_allowed_window
SELECT run_id, case_id, 'window.matched_allowed_window',
       coalesce(ws IS NOT NULL AND we IS NOT NULL AND ws <= we
                AND ws >= window_start - to_seconds(tolerance_s)
                AND we <= window_end + to_seconds(tolerance_s), false),
       0,
       CASE
           WHEN file IS NULL THEN 'the run states no incident window'
           WHEN ws IS NULL OR we IS NULL THEN 'the stated window is not a valid timestamp pair'
           WHEN window_start IS NULL OR window_end IS NULL THEN 'the case has no time window'
           WHEN ws > we THEN 'the stated window ends before it starts'
           ELSE 'stated ' || strftime(ws, '%Y-%m-%dT%H:%M:%SZ') || ' .. '
                || strftime(we, '%Y-%m-%dT%H:%M:%SZ')
                || CASE WHEN ws >= window_start - to_seconds(tolerance_s)
                         AND we <= window_end + to_seconds(tolerance_s)
                        THEN ' lies within ' ELSE ' is outside ' END
                || 'the case window ' || strftime(window_start, '%Y-%m-%dT%H:%M:%SZ') || ' .. '
                || strftime(window_end, '%Y-%m-%dT%H:%M:%SZ') || ' ± '
                || tolerance_s::VARCHAR || 's'
       END,
       file, base_path, NULL, start_text || ' .. ' || end_text
FROM fx_window

UNION ALL
-- cluster.present
SELECT run_id, case_id, 'cluster.present', file IS NOT NULL, 0,
       CASE WHEN file IS NOT NULL THEN 'cluster id stated in ' || file
            ELSE 'neither the report metadata nor the manifest states a cluster id' END,
       file, path, NULL, cluster
FROM fx_cluster

UNION ALL
-- cluster.matched
SELECT run_id, case_id, 'cluster.matched', coalesce(cluster = trim(expected), false), 0,
       CASE WHEN file IS NULL THEN 'the run states no cluster id'
            WHEN expected IS NULL THEN 'the case has no environment.cluster_id'
            WHEN cluster = trim(expected) THEN 'cluster ' || cluster || ' matches the case'
            ELSE 'cluster ' || cluster || ' differs from the case''s ' || expected END,
       file, path, NULL, cluster
FROM fx_cluster

UNION ALL
-- workflow.* milestones from telemetry (evidence_collection_completed also needs the report)
SELECT t.run_id, t.case_id, m.fact, true, 1,
       'telemetry event ' || t.event || ' at line ' || t.line_no::VARCHAR,
       tf.file, NULL, t.line_no, left(coalesce(t.text, t.event), 300)
FROM fx_tele AS t
JOIN (VALUES
        ('workflow.architecture_context_loaded', 'architecture_context.loaded'),
        ('workflow.misdiagnosis_guardrails_loaded', 'guardrails.loaded'),
        ('workflow.diagnosis_run_initialized', 'diagnosis_run.initialized'),
        ('workflow.evidence_collection_completed', 'evidence_collection.completed'),
        ('workflow.summary_read_completed', 'summary.read'),
        ('workflow.targeted_log_query_completed', 'log_query.completed')
     ) AS m(fact, event) ON m.event = t.event
JOIN fx_tele_file AS tf ON tf.run_id = t.run_id AND tf.case_id = t.case_id
WHERE t.ok
  AND (m.fact <> 'workflow.evidence_collection_completed' OR EXISTS (
        SELECT 1 FROM fx_file AS f
        WHERE f.run_id = t.run_id AND f.case_id = t.case_id AND f.status IN ('ok', 'not_utf8')
          AND f.file = 'evidences/workspace_evidence_report.json'))

UNION ALL
-- workflow.summary_read_completed: a summary artifact also counts
SELECT run_id, case_id, 'workflow.summary_read_completed', true, 2,
       'summary artifact ' || file || ' exists', file, NULL, NULL, NULL
FROM fx_file
WHERE base IN ('evidence_summary_for_agent.txt', 'evidence_summary_for_agent.json')

UNION ALL
-- workflow.final_answer_emitted
SELECT o.run_id, o.case_id, 'workflow.final_answer_emitted', true, 1,
       'the final answer has text', 'output.txt', NULL, o.line_no, left(o.text, 300)
FROM j_raw_output_sentence AS o
JOIN j_scope AS k ON k.run_id = o.run_id AND k.case_id = o.case_id
WHERE trim(o.text) <> '' AND coalesce(o.section_kind, '') <> 'followup'

UNION ALL
-- artifacts.*
SELECT run_id, case_id, a.fact, true, 1,
       file || ' is present (' || status || ')', file, NULL, NULL, NULL
FROM fx_file AS f
JOIN (VALUES
        ('artifacts.manifest_present', 'manifest', true),
        ('artifacts.report_present', 'report', true),
        ('artifacts.summary_present', 'summary', false),
        ('artifacts.telemetry_present', 'telemetry', false),
        ('artifacts.analysis_patch_present', 'patch', false),
        ('analysis.patch_present', 'patch', false),
        ('artifacts.logs_dir_present', 'logs', false)
     ) AS a(fact, what, needs_ok)
  ON CASE a.what
         WHEN 'manifest' THEN f.file = 'manifest.json'
         WHEN 'report' THEN f.file = 'evidences/workspace_evidence_report.json'
         WHEN 'summary' THEN f.base IN ('evidence_summary_for_agent.txt',
                                         'evidence_summary_for_agent.json')
         WHEN 'telemetry' THEN f.base = 'telemetry.log'
         WHEN 'patch' THEN f.base = 'analysis_patch.json'
         WHEN 'logs' THEN starts_with(f.file, 'logs/')
     END
 AND (NOT a.needs_ok OR f.status IN ('ok', 'not_utf8'));
