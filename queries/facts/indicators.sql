-- Indicator facts: the infrastructure and hotspot indicators of the health gates and the log
-- statistics (signal.infra_unhealthy, signal.hotspot_present, signal.alert_firing,
-- signal.error_logs_present). Inputs: the JSON values of gate_checks.json ($.checks[*]),
-- the `stats` block of logs.json and a separate log_stats.json (the same {total, by_level}
-- shape at its root), and the collected log lines' levels. Same row shape as
-- facts/trace.sql: witness rows are true; base.sql fills false.

-- One row per gate check: its index, id, name, status and detail (lower-cased status).
CREATE OR REPLACE TEMP VIEW fx_gate_check AS
SELECT run_id, case_id, file, idx,
       '$.checks[' || idx::VARCHAR || ']' AS path,
       max(value_text) FILTER (WHERE field = 'id') AS gate_id,
       max(value_text) FILTER (WHERE field = 'name') AS name,
       lower(trim(max(value_text) FILTER (WHERE field = 'status'))) AS status,
       max(value_text) FILTER (WHERE field = 'detail') AS detail
FROM (
    SELECT run_id, case_id, file, value_text,
           try_cast(regexp_extract(path, '^\$\.checks\[(\d+)\]\.(id|name|status|detail)$', 1)
                    AS INTEGER) AS idx,
           regexp_extract(path, '^\$\.checks\[(\d+)\]\.(id|name|status|detail)$', 2) AS field
    FROM fx_json
    WHERE base_name_eq(file, 'gate_checks.json') AND type = 'string'
      AND starts_with(path, '$.checks[')
      AND regexp_matches(path, '^\$\.checks\[\d+\]\.(id|name|status|detail)$')
)
GROUP BY run_id, case_id, file, idx;

-- Error-level line counts the log statistics state: logs.json $.stats.by_level.<LEVEL> or
-- log_stats.json $.by_level.<LEVEL>, for the levels at or above ERROR.
CREATE OR REPLACE TEMP VIEW fx_log_stat_errors AS
SELECT run_id, case_id, file, path, level, n
FROM (
    SELECT run_id, case_id, file, path, value_num AS n,
           upper(regexp_extract(path, '^\$(?:\.stats)?\.by_level\.([A-Za-z]+)$', 1)) AS level,
           starts_with(path, '$.stats.') AS in_stats
    FROM fx_json
    WHERE type = 'number' AND value_num > 0 AND isfinite(value_num)
      AND (base_name_eq(file, 'logs.json') OR base_name_eq(file, 'log_stats.json'))
)
WHERE level IN ('ERROR', 'FATAL', 'CRITICAL', 'PANIC', 'EMERG', 'ALERT')
  AND in_stats = base_name_eq(file, 'logs.json');

CREATE OR REPLACE TEMP VIEW fx_indicator AS
-- signal.infra_unhealthy: an infrastructure-health gate (its name says infra) fails or warns
SELECT run_id, case_id, 'signal.infra_unhealthy' AS fact, true AS value,
       CASE status WHEN 'fail' THEN 1 ELSE 2 END AS rank,
       'infrastructure gate ' || coalesce(name, '?') || ' is ' || status
           || coalesce(': ' || left(detail, 200), '') AS detail,
       file AS evidence_file, path AS evidence_path, NULL::INTEGER AS evidence_line,
       left(detail, 300) AS evidence_excerpt
FROM fx_gate_check
WHERE status IN ('fail', 'warn') AND regexp_matches(coalesce(name, ''), '(?i)infra')

UNION ALL
-- signal.hotspot_present: a hotspot gate (its name says hotspot / hot region) fails or warns
SELECT run_id, case_id, 'signal.hotspot_present', true,
       CASE status WHEN 'fail' THEN 1 ELSE 2 END,
       'hotspot gate ' || coalesce(name, '?') || ' is ' || status
           || coalesce(': ' || left(detail, 200), ''),
       file, path, NULL, left(detail, 300)
FROM fx_gate_check
WHERE status IN ('fail', 'warn')
  AND regexp_matches(coalesce(name, ''), '(?i)hot[ _-]?spot|hot[ _-]?region')

UNION ALL
-- signal.alert_firing: any gate check or alert rule fails (fired)
SELECT run_id, case_id, 'signal.alert_firing', true, 1,
       'gate ' || coalesce(name, gate_id, '#' || idx::VARCHAR) || ' is fail'
           || coalesce(': ' || left(detail, 200), ''),
       file, path, NULL, left(detail, 300)
FROM fx_gate_check
WHERE status = 'fail'

UNION ALL
-- signal.error_logs_present: the log statistics count an error-level line ...
SELECT run_id, case_id, 'signal.error_logs_present', true, 1,
       'log statistics count ' || n::BIGINT::VARCHAR || ' ' || level || ' line(s) (' || file
           || ')',
       file, path, NULL, level || ' = ' || n::BIGINT::VARCHAR
FROM fx_log_stat_errors

UNION ALL
-- ... or a collected log line is at an error level
SELECT run_id, case_id, 'signal.error_logs_present', true, 2,
       upper(level) || ' log line ' || file || ':' || line_no::VARCHAR, file, NULL, line_no,
       left(text, 300)
FROM fx_log_line
WHERE upper(level) IN ('ERROR', 'FATAL', 'CRITICAL', 'PANIC', 'EMERG', 'ALERT');
