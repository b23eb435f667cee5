-- Evidence facts: evidence.*, channel.*, signal.*.
-- Inputs: the file inventory, metrics/queries/log lines/events as extracted, JSON values of
-- the report, collection_errors.json, gate_checks.json, traces.json, ticket_context.json and
-- component_health.json, and telemetry. Same row shape as facts/trace.sql (witness rows are
-- true; base.sql fills false).

-- One witness per case run: its first metric point (by path, then excerpt) of a series with a
-- finite value (a NaN or infinite point is not a measurement: metrics.nan_points). base.sql picks a fact's first row in that same order (after value, rank and file,
-- equal here), so no other point could be picked, and a run's hundreds of points are
-- reduced here instead of each becoming two fact rows. A path names one series, so the first
-- path is found over the distinct series first, and only that series' points get an excerpt
-- (building every point's text and sorting it cost more than the rest of the witness).
CREATE OR REPLACE TEMP VIEW fx_metric_finite AS
SELECT p.run_id, p.case_id, p.series_idx, p.series_id, p.name, p.value
FROM j_raw_metric_point AS p
JOIN j_scope AS k ON k.run_id = p.run_id AND k.case_id = p.case_id
WHERE isfinite(p.value);

CREATE OR REPLACE TEMP VIEW fx_metric_witness AS
WITH first_series AS (
    SELECT run_id, case_id, min(path) AS path, arg_min(series_idx, path) AS series_idx
    FROM (SELECT run_id, case_id, series_idx,
                 '$.series[' || series_idx::VARCHAR || ']' AS path
          FROM (SELECT DISTINCT run_id, case_id, series_idx FROM fx_metric_finite))
    GROUP BY run_id, case_id
)
SELECT f.run_id, f.case_id, 'evidences/metrics.json' AS file, s.path,
       min(coalesce(f.series_id, '?') || ' ' || coalesce(f.name, '?') || ' = '
           || f.value::VARCHAR) AS excerpt
FROM fx_metric_finite AS f
JOIN first_series AS s
  ON s.run_id = f.run_id AND s.case_id = f.case_id AND s.series_idx = f.series_idx
GROUP BY f.run_id, f.case_id, s.path;

CREATE OR REPLACE TEMP VIEW fx_query_witness AS
SELECT q.run_id, q.case_id, 'evidences/queries.json' AS file,
       '$.queries[' || q.idx::VARCHAR || ']' AS path,
       coalesce(q.query_id, '?') || ' ' || coalesce(q.kind, '') || ' '
           || left(coalesce(q.sql_text, ''), 200) AS excerpt,
       q.idx, q.kind, q.sql_text
FROM j_raw_query AS q
JOIN j_scope AS k ON k.run_id = q.run_id AND k.case_id = q.case_id;

CREATE OR REPLACE TEMP VIEW fx_log_line AS
SELECT l.*
FROM j_raw_log_line AS l
JOIN j_scope AS k ON k.run_id = l.run_id AND k.case_id = l.case_id;

CREATE OR REPLACE TEMP VIEW fx_evidence AS
-- evidence.core_bundle_present (explicit): report, metrics, queries and logs.json parsed
SELECT k.run_id, k.case_id, 'evidence.core_bundle_present' AS fact,
       count(f.file) = 4 AS value, 0 AS rank,
       CASE WHEN count(f.file) = 4
            THEN 'report, metrics.json, queries.json and logs.json all parsed'
            ELSE 'not parsed: ' || array_to_string(list_filter(
                ['evidences/workspace_evidence_report.json', 'evidences/metrics.json',
                 'evidences/queries.json', 'evidences/logs.json'],
                lambda x: NOT list_contains(coalesce(list(f.file), []), x)), ', ')
       END AS detail,
       NULL::VARCHAR AS evidence_file, NULL::VARCHAR AS evidence_path,
       NULL::INTEGER AS evidence_line, NULL::VARCHAR AS evidence_excerpt
FROM j_scope AS k
LEFT JOIN fx_file AS f
       ON f.run_id = k.run_id AND f.case_id = k.case_id AND f.status IN ('ok', 'not_utf8')
      AND f.file IN ('evidences/workspace_evidence_report.json', 'evidences/metrics.json',
                     'evidences/queries.json', 'evidences/logs.json')
GROUP BY k.run_id, k.case_id

UNION ALL
-- evidence.metric_evidence_present / channel.metrics_observed / channel.query_or_metric_observed
SELECT w.run_id, w.case_id, m.fact, true, 1, 'metric series with a point: ' || w.path,
       w.file, w.path, NULL, w.excerpt
FROM fx_metric_witness AS w
CROSS JOIN (VALUES ('evidence.metric_evidence_present'), ('channel.metrics_observed'))
    AS m(fact)

UNION ALL
-- evidence.query_evidence_present / channel.queries_observed
SELECT w.run_id, w.case_id, m.fact, true, 1, 'query record ' || w.path,
       w.file, w.path, NULL, w.excerpt
FROM fx_query_witness AS w
CROSS JOIN (VALUES ('evidence.query_evidence_present'), ('channel.queries_observed')) AS m(fact)

UNION ALL
-- evidence.nonfinite_numbers_present (a warning: the file held bare NaN / Infinity tokens,
-- which extraction reads as Python's json does; those metric points are non-numeric)
SELECT run_id, case_id, 'evidence.nonfinite_numbers_present', true, 1,
       file || ' holds a non-finite number (' || value_text || ') at ' || path
           || ': read leniently, not counted as a numeric point', file, path, NULL,
       value_text
FROM fx_json
WHERE type = 'number' AND (isnan(value_num) OR isinf(value_num))

UNION ALL
-- metrics.nan_points / metrics.infinite_points (warnings): how many metric points are NaN /
-- infinite, in metrics.json (raw_metric_point) and in other files of its shape (raw_json).
-- Such a point is never compared with a threshold (methods/numeric_series_any_gt.sql).
SELECT run_id, case_id, fact, true, 1,
       n::VARCHAR || ' ' || what || ' metric point(s) in ' || n_series::VARCHAR
           || ' series (' || files || '), never compared with a threshold; first: '
           || pick.excerpt,
       pick.file, pick.path, NULL, pick.excerpt
FROM (
    SELECT run_id, case_id,
           CASE WHEN isnan(value) THEN 'metrics.nan_points'
                ELSE 'metrics.infinite_points' END AS fact,
           CASE WHEN isnan(value) THEN 'NaN' ELSE 'infinite' END AS what,
           count(*) AS n, count(DISTINCT (file, si)) AS n_series,
           string_agg(DISTINCT file, ', ' ORDER BY file) AS files,
           first({'file': file, 'path': path, 'excerpt': excerpt}
                 ORDER BY file, si, path, excerpt) AS pick
    FROM (
        SELECT p.run_id, p.case_id, 'evidences/metrics.json' AS file, p.series_idx AS si,
               '$.series[' || p.series_idx::VARCHAR || ']' AS path, p.value,
               coalesce(p.name, '?') || coalesce(' ' || p.series_id, '') || ' = '
                   || p.value::VARCHAR
                   || coalesce(' at ' || strftime(p.ts, '%Y-%m-%dT%H:%M:%SZ'), '') AS excerpt
        FROM j_raw_metric_point AS p
        JOIN j_scope AS k ON k.run_id = p.run_id AND k.case_id = p.case_id
        WHERE NOT isfinite(p.value)
        UNION ALL
        SELECT run_id, case_id, file,
               regexp_extract(path, '^\$\.series\[(\d+)\]', 1)::INTEGER, path, value_num,
               path || ' = ' || value_text
        FROM fx_json
        WHERE type = 'number' AND NOT isfinite(value_num)
          AND file <> 'evidences/metrics.json'
          AND regexp_matches(path, '^\$\.series\[\d+\]\.points\[\d+\](?:\[1\]|\.value)$')
    )
    GROUP BY run_id, case_id, fact, what
)

UNION ALL
-- evidence.collection_errors_present
SELECT run_id, case_id, 'evidence.collection_errors_present', true, 1,
       'collection_errors.json lists ' || length::VARCHAR || ' error(s)', file, path, NULL, NULL
FROM fx_json
WHERE base_name_eq(file, 'collection_errors.json') AND path = '$.errors'
  AND type = 'array' AND length > 0

UNION ALL
-- channel.logs_observed
SELECT run_id, case_id, 'channel.logs_observed', true, 1,
       'log line ' || file || ':' || line_no::VARCHAR, file, NULL, line_no, left(text, 300)
FROM fx_log_line

UNION ALL
-- channel.events_observed
SELECT e.run_id, e.case_id, 'channel.events_observed', true, 1,
       'event ' || coalesce(e.event_id, '#' || e.idx::VARCHAR) || ' from '
           || coalesce(e.source, 'events.json'),
       CASE WHEN e.source = 'report' THEN 'evidences/workspace_evidence_report.json'
            ELSE 'evidences/events.json' END,
       CASE WHEN e.source = 'report' THEN '$.evidence.events[' || e.idx::VARCHAR || ']'
            ELSE '$.events[' || e.idx::VARCHAR || ']' END,
       NULL,
       left(concat_ws(' ', e.type, e.object, e.reason, e.message), 300)
FROM j_raw_event AS e
JOIN j_scope AS k ON k.run_id = e.run_id AND k.case_id = e.case_id

UNION ALL
-- channel.alerts_observed: gate_checks.json lists an alert or gate check
SELECT run_id, case_id, 'channel.alerts_observed', true, 1,
       'gate_checks.json lists ' || length::VARCHAR || ' check(s)', file, path, NULL, NULL
FROM fx_json
WHERE base_name_eq(file, 'gate_checks.json') AND path = '$.checks'
  AND type = 'array' AND length > 0

UNION ALL
-- channel.traces_observed: traces.json lists a trace span
SELECT run_id, case_id, 'channel.traces_observed', true, 1,
       'traces.json lists ' || length::VARCHAR || ' span(s)', file, path, NULL, NULL
FROM fx_json
WHERE base_name_eq(file, 'traces.json') AND path = '$.spans'
  AND type = 'array' AND length > 0

UNION ALL
-- channel.ticket_context_observed: a ticket id or alerts in ticket_context.json ...
SELECT run_id, case_id, 'channel.ticket_context_observed', true, 1,
       CASE WHEN path = '$.ticket_id' THEN 'ticket_context.json names ticket ' || value_text
            ELSE 'ticket_context.json lists ' || length::VARCHAR || ' alert(s)' END,
       file, path, NULL, value_text
FROM fx_json
WHERE base_name_eq(file, 'ticket_context.json')
  AND ((path = '$.ticket_id' AND type IN ('string', 'number')
        AND nullif(trim(value_text), '') IS NOT NULL)
    OR (path = '$.alerts' AND type = 'array' AND length > 0))

UNION ALL
-- ... or telemetry ticket_context.loaded
SELECT t.run_id, t.case_id, 'channel.ticket_context_observed', true, 2,
       'telemetry event ticket_context.loaded at line ' || t.line_no::VARCHAR,
       tf.file, NULL, t.line_no, left(coalesce(t.text, t.event), 300)
FROM fx_tele AS t
JOIN fx_tele_file AS tf ON tf.run_id = t.run_id AND tf.case_id = t.case_id
WHERE t.event = 'ticket_context.loaded' AND t.ok

UNION ALL
-- channel.events_collection_attempted: telemetry ...
SELECT t.run_id, t.case_id, 'channel.events_collection_attempted', true, 1,
       'telemetry event events_query.attempted at line ' || t.line_no::VARCHAR,
       tf.file, NULL, t.line_no, left(coalesce(t.text, t.event), 300)
FROM fx_tele AS t
JOIN fx_tele_file AS tf ON tf.run_id = t.run_id AND tf.case_id = t.case_id
WHERE t.event = 'events_query.attempted'

UNION ALL
-- ... or the report's channels.events.attempted
SELECT run_id, case_id, 'channel.events_collection_attempted', true, 2,
       'the report says channels.events.attempted = true', file, path, NULL, value_text
FROM fx_json
WHERE file = 'evidences/workspace_evidence_report.json' AND path = '$.channels.events.attempted'
  AND ((type = 'boolean' AND lower(value_text) = 'true') OR (type = 'number' AND value_num <> 0))

UNION ALL
-- channel.events_output_present: events.json parsed ...
SELECT run_id, case_id, 'channel.events_output_present', true, 1,
       file || ' parsed', file, NULL, NULL, NULL
FROM fx_file
WHERE base = 'events.json' AND starts_with(file, 'evidences/') AND status IN ('ok', 'not_utf8')

UNION ALL
-- ... or the report has an evidence.events key
SELECT run_id, case_id, 'channel.events_output_present', true, 2,
       'the report has an evidence.events key', file, path, NULL, NULL
FROM fx_json
WHERE file = 'evidences/workspace_evidence_report.json' AND path = '$.evidence.events'

UNION ALL
-- signal.panic_present: a log line ...
SELECT run_id, case_id, 'signal.panic_present', true, 1,
       'panic signature in ' || file || ':' || line_no::VARCHAR, file, NULL, line_no,
       left(text, 300)
FROM fx_log_line
WHERE regexp_matches(text, '(?i)\bpanic(?:ked|king|s)?\b|\bSIGSEGV\b|\bSIGABRT\b|fatal error: runtime')

UNION ALL
-- ... or a component's termination reason
SELECT run_id, case_id, 'signal.panic_present', true, 2,
       'panic signature in a component termination reason', file, path, NULL,
       left(value_text, 300)
FROM fx_json
WHERE base_name_eq(file, 'component_health.json') AND type = 'string'
  -- the prefix and suffix tests are implied by the rewrite; they spare it on other paths
  AND starts_with(path, '$.components[') AND ends_with(path, '].last_termination_reason')
  AND regexp_replace(path, '\[\d+\]', '[*]', 'g') = '$.components[*].last_termination_reason'
  AND regexp_matches(value_text, '(?i)\bpanic(?:ked|king|s)?\b|\bSIGSEGV\b|\bSIGABRT\b')

UNION ALL
-- signal.kill_query_present: a log line ...
SELECT run_id, case_id, 'signal.kill_query_present', true, 1,
       'KILL QUERY / killed statement in ' || file || ':' || line_no::VARCHAR, file, NULL,
       line_no, left(text, 300)
FROM fx_log_line
WHERE regexp_matches(text,
    '(?i)\bkill\s+(?:tidb\s+)?(?:query|connection)\b|\b(?:query|statement|connection)\s+(?:was\s+|is\s+|has\s+been\s+)?killed\b|\bkilled\s+(?:statement|query)')

UNION ALL
-- ... or a query record
SELECT run_id, case_id, 'signal.kill_query_present', true, 2,
       'query record ' || path || ' is a kill', file, path, NULL, excerpt
FROM fx_query_witness
WHERE lower(coalesce(kind, '')) = 'kill'
   OR regexp_matches(coalesce(sql_text, ''), '(?i)^\s*kill\s');
