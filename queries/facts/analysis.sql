-- Routing facts: analysis.* from analysis_patch.json, resolved against the
-- evidence collected in the same bundle (metric series ids, query ids, log entry ids, event
-- ids). A ref resolves only inside a valid patch; refs of an invalid patch never resolve.
-- Same row shape as facts/trace.sql. analysis.patch_present is emitted by facts/trace.sql
-- and analysis.all_refs_resolvable by facts/derived.sql.
-- fx_patch, fx_patch_ref and fx_report_finding are tables, computed once per pass: the fact
-- views below name each several times (as views, each name re-ran its query, ten scans of
-- fx_json for fx_patch alone).

CREATE OR REPLACE TEMP TABLE fx_patch AS
WITH pf AS (
    SELECT run_id, case_id, file, status
    FROM fx_file
    WHERE base = 'analysis_patch.json'
    QUALIFY row_number() OVER (PARTITION BY run_id, case_id ORDER BY length(file), file) = 1
),
shape AS (
    SELECT j.run_id, j.case_id,
           bool_or(j.path = '$' AND j.type = 'object') AS root_object,
           bool_or(j.path = '$.items' AND j.type = 'array') AS items_list
    FROM fx_json AS j
    JOIN pf ON pf.run_id = j.run_id AND pf.case_id = j.case_id AND pf.file = j.file
    WHERE j.path IN ('$', '$.items')
    GROUP BY j.run_id, j.case_id
)
SELECT k.run_id, k.case_id, pf.file, pf.status,
       pf.file IS NOT NULL AS present,
       coalesce(pf.status IN ('ok', 'not_utf8') AND s.root_object AND s.items_list, false) AS valid,
       CASE
           WHEN pf.file IS NULL THEN 'no analysis_patch.json'
           WHEN pf.status NOT IN ('ok', 'not_utf8') THEN pf.file || ' did not parse (' || pf.status || ')'
           WHEN NOT coalesce(s.root_object, false) THEN pf.file || ' is not a JSON object'
           WHEN NOT coalesce(s.items_list, false) THEN pf.file || ' has no `items` list'
           ELSE pf.file || ' is a JSON object with an items list'
       END AS valid_detail
FROM j_scope AS k
LEFT JOIN pf ON pf.run_id = k.run_id AND pf.case_id = k.case_id
LEFT JOIN shape AS s ON s.run_id = k.run_id AND s.case_id = k.case_id;

-- Every ref of the patch with whether it names collected evidence.
CREATE OR REPLACE TEMP TABLE fx_patch_ref AS
WITH metric_ids AS (
    SELECT DISTINCT run_id, case_id, series_id AS id FROM j_raw_metric_point
    WHERE series_id IS NOT NULL
    UNION
    SELECT run_id, case_id, value_text FROM fx_json
    WHERE file = 'evidences/metrics.json' AND type = 'string'
      AND regexp_matches(path, '^\$\.series\[\d+\]\.id$')
),
ids AS (
    SELECT run_id, case_id, 'metric' AS ref_type, id FROM metric_ids
    UNION
    SELECT run_id, case_id, 'query', query_id FROM j_raw_query WHERE query_id IS NOT NULL
    UNION
    SELECT run_id, case_id, 'log', entry_id FROM j_raw_log_line WHERE entry_id IS NOT NULL
    UNION
    SELECT run_id, case_id, 'event', event_id FROM j_raw_event WHERE event_id IS NOT NULL
)
SELECT r.run_id, r.case_id, r.item_idx, r.ref_idx, lower(r.ref_type) AS ref_type, r.ref_id,
       i.item_id,
       p.file,
       '$.items[' || r.item_idx::VARCHAR || '].refs[' || r.ref_idx::VARCHAR || ']' AS path,
       EXISTS (SELECT 1 FROM ids
               WHERE ids.run_id = r.run_id AND ids.case_id = r.case_id
                 AND ids.ref_type = lower(r.ref_type) AND ids.id = r.ref_id) AS resolved
FROM j_raw_patch_ref AS r
JOIN fx_patch AS p ON p.run_id = r.run_id AND p.case_id = r.case_id
LEFT JOIN j_raw_patch_item AS i
       ON i.run_id = r.run_id AND i.case_id = r.case_id AND i.idx = r.item_idx;

CREATE OR REPLACE TEMP VIEW fx_analysis AS
-- analysis.patch_valid_json
SELECT run_id, case_id, 'analysis.patch_valid_json' AS fact, valid AS value, 0 AS rank,
       valid_detail AS detail, file AS evidence_file, '$.items' AS evidence_path,
       NULL::INTEGER AS evidence_line, NULL::VARCHAR AS evidence_excerpt
FROM fx_patch

UNION ALL
-- analysis.items_shape_valid: every item well-formed (checked by extraction: shape_ok)
SELECT p.run_id, p.case_id, 'analysis.items_shape_valid',
       p.valid AND count(i.idx) FILTER (WHERE NOT coalesce(i.shape_ok, false)) = 0, 0,
       CASE
           WHEN NOT p.valid THEN p.valid_detail
           WHEN count(i.idx) FILTER (WHERE NOT coalesce(i.shape_ok, false)) = 0
               THEN 'all ' || count(i.idx)::VARCHAR || ' item(s) are well-formed'
           ELSE 'item ' || arg_min('#' || i.idx::VARCHAR || ' (' || coalesce(i.item_id, 'no id')
                    || '): ' || coalesce(i.problem, 'malformed'), i.idx)
                    FILTER (WHERE NOT coalesce(i.shape_ok, false))
       END,
       p.file,
       arg_min('$.items[' || i.idx::VARCHAR || ']', i.idx)
           FILTER (WHERE NOT coalesce(i.shape_ok, false)),
       NULL, NULL
FROM fx_patch AS p
LEFT JOIN j_raw_patch_item AS i ON i.run_id = p.run_id AND i.case_id = p.case_id
GROUP BY p.run_id, p.case_id, p.valid, p.valid_detail, p.file

UNION ALL
-- analysis.key_evidence_present: a key item citing evidence (witness)
SELECT p.run_id, p.case_id, 'analysis.key_evidence_present', true, 1,
       'key item ' || coalesce(i.item_id, '#' || i.idx::VARCHAR) || ' cites evidence',
       p.file, '$.items[' || i.idx::VARCHAR || ']', NULL, left(i.claim, 300)
FROM fx_patch AS p
JOIN j_raw_patch_item AS i ON i.run_id = p.run_id AND i.case_id = p.case_id
WHERE p.valid AND lower(i.role) = 'key'
  AND EXISTS (SELECT 1 FROM j_raw_patch_ref AS r
              WHERE r.run_id = i.run_id AND r.case_id = i.case_id AND r.item_idx = i.idx
                AND r.ref_id IS NOT NULL)

UNION ALL
-- analysis.{metric,query,log,event}_refs_resolvable
SELECT p.run_id, p.case_id, 'analysis.' || t.ref_type || '_refs_resolvable',
       p.valid AND count(r.ref_idx) FILTER (WHERE NOT r.resolved) = 0, 0,
       CASE
           WHEN NOT p.valid THEN p.valid_detail
           WHEN count(r.ref_idx) FILTER (WHERE NOT r.resolved) = 0
               THEN 'all ' || count(r.ref_idx)::VARCHAR || ' ' || t.ref_type
                    || ' ref(s) resolve'
           ELSE count(r.ref_idx) FILTER (WHERE NOT r.resolved)::VARCHAR || ' '
                || t.ref_type || ' ref(s) name no collected ' || t.what || ', first: '
                || arg_min(coalesce(r.ref_id, 'null') || ' (item '
                           || coalesce(r.item_id, '#' || r.item_idx::VARCHAR) || ')',
                           (r.item_idx, r.ref_idx)) FILTER (WHERE NOT r.resolved)
       END,
       p.file,
       arg_min(r.path, (r.item_idx, r.ref_idx)) FILTER (WHERE NOT r.resolved),
       NULL,
       arg_min(r.ref_id, (r.item_idx, r.ref_idx)) FILTER (WHERE NOT r.resolved)
FROM fx_patch AS p
CROSS JOIN (VALUES ('metric', 'series'), ('query', 'query'), ('log', 'log entry'),
                   ('event', 'event')) AS t(ref_type, what)
LEFT JOIN fx_patch_ref AS r
       ON r.run_id = p.run_id AND r.case_id = p.case_id AND r.ref_type = t.ref_type
GROUP BY p.run_id, p.case_id, p.valid, p.valid_detail, p.file, t.ref_type, t.what;

-- The report's own analysis block (evidences/workspace_evidence_report.json $.analysis): the
-- root cause and key findings the analysis patch structures. A finding is grounded when an
-- item of a valid patch makes the same claim (trimmed, case-insensitive) and cites at least
-- one collected evidence id.
CREATE OR REPLACE TEMP TABLE fx_report_finding AS
SELECT j.run_id, j.case_id, j.file, j.path,
       try_cast(regexp_extract(j.path, '\[(\d+)\]$', 1) AS INTEGER) AS idx,
       j.value_text AS finding,
       EXISTS (SELECT 1
               FROM fx_patch AS p
               JOIN j_raw_patch_item AS i ON i.run_id = p.run_id AND i.case_id = p.case_id
               JOIN fx_patch_ref AS r
                 ON r.run_id = i.run_id AND r.case_id = i.case_id AND r.item_idx = i.idx
               WHERE p.run_id = j.run_id AND p.case_id = j.case_id AND p.valid AND r.resolved
                 AND lower(trim(i.claim)) = lower(trim(j.value_text))) AS grounded
FROM fx_json AS j
WHERE j.file = 'evidences/workspace_evidence_report.json' AND j.type = 'string'
  AND starts_with(j.path, '$.analysis.key_findings[')
  AND regexp_matches(j.path, '^\$\.analysis\.key_findings\[\d+\]$')
  AND nullif(trim(j.value_text), '') IS NOT NULL;

CREATE OR REPLACE TEMP VIEW fx_report_analysis AS
-- analysis.report_root_cause_present: the report's analysis states a root cause (witness)
SELECT run_id, case_id, 'analysis.report_root_cause_present' AS fact, true AS value,
       1 AS rank, 'the report''s analysis states a root cause' AS detail,
       file AS evidence_file, path AS evidence_path, NULL::INTEGER AS evidence_line,
       left(value_text, 300) AS evidence_excerpt
FROM fx_json
WHERE file = 'evidences/workspace_evidence_report.json' AND path = '$.analysis.root_cause'
  AND type = 'string' AND nullif(trim(value_text), '') IS NOT NULL

UNION ALL
-- analysis.report_findings_present: it lists a key finding (witness)
SELECT run_id, case_id, 'analysis.report_findings_present', true, 1,
       'the report''s analysis lists key finding #' || idx::VARCHAR, file, path, NULL,
       left(finding, 300)
FROM fx_report_finding

UNION ALL
-- analysis.report_findings_grounded: it lists key findings and the patch grounds every one
SELECT k.run_id, k.case_id, 'analysis.report_findings_grounded',
       count(f.idx) > 0 AND count(f.idx) FILTER (WHERE NOT f.grounded) = 0, 0,
       CASE
           WHEN count(f.idx) = 0 THEN 'the report''s analysis lists no key findings'
           WHEN count(f.idx) FILTER (WHERE NOT f.grounded) = 0
               THEN 'all ' || count(f.idx)::VARCHAR
                    || ' key finding(s) are patch claims citing collected evidence'
           ELSE count(f.idx) FILTER (WHERE NOT f.grounded)::VARCHAR || ' of '
                || count(f.idx)::VARCHAR || ' key finding(s) are no patch claim citing '
                || 'collected evidence, first: #'
                || arg_min(f.idx, f.idx) FILTER (WHERE NOT f.grounded)::VARCHAR
       END,
       CASE WHEN count(f.idx) > 0 THEN 'evidences/workspace_evidence_report.json' END,
       arg_min(f.path, f.idx) FILTER (WHERE NOT f.grounded), NULL,
       left(arg_min(f.finding, f.idx) FILTER (WHERE NOT f.grounded), 300)
FROM j_scope AS k
LEFT JOIN fx_report_finding AS f ON f.run_id = k.run_id AND f.case_id = k.case_id
GROUP BY k.run_id, k.case_id;
