-- Evidence method span_error_any (docs/judge.md "Critical-evidence methods"): holds when a
-- trace span of `file` (default evidences/traces.json, `$.spans[i]`) has status `error`,
-- its service equals `service` when the rule names one (case-insensitive, kept in the
-- condition's `labels` under key service), and - when the rule gives `keywords` - a string
-- value at or under that span (status_message, attributes, events) contains one of them
-- (case-insensitive).
-- Registered by file name (rcaeval/_vocab.py EVIDENCE_METHODS); reads mx_cond / mx_json
-- (facts/methods.sql). Defines mx_w_span_error_any (every witness) and
-- mx_miss_span_error_any (the detail when nothing holds).

CREATE OR REPLACE TEMP VIEW mx_w_span_error_any AS
WITH conds AS (
    SELECT * FROM mx_cond WHERE method = 'span_error_any'
),
sj AS (
    SELECT j.run_id, j.case_id, j.file, j.path, j.type, j.value_text,
           regexp_extract(j.path, '^\$\.spans\[(\d+)\]', 1) AS si
    FROM mx_json AS j
    SEMI JOIN (SELECT DISTINCT run_id, case_id, file_rel FROM conds) AS f
           ON f.run_id = j.run_id AND f.case_id = j.case_id AND f.file_rel = j.file
    WHERE regexp_matches(j.path, '^\$\.spans\[\d+\]')
),
spans AS (
    SELECT run_id, case_id, file, si,
           max(value_text) FILTER (WHERE path = '$.spans[' || si || '].status') AS status,
           max(value_text) FILTER (WHERE path = '$.spans[' || si || '].service') AS service,
           max(value_text) FILTER (WHERE path = '$.spans[' || si || '].operation') AS operation,
           max(value_text) FILTER (WHERE path = '$.spans[' || si || '].id') AS span_id
    FROM sj
    GROUP BY run_id, case_id, file, si
),
hits AS (
    SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, c.keywords, s.file, s.si,
           'error span ' || coalesce(s.span_id, '$.spans[' || s.si || ']') || ' ('
               || coalesce(s.service, '?') || ' ' || coalesce(s.operation, '?') || ')'
               AS what,
           coalesce(s.service, '') || ' ' || coalesce(s.operation, '') AS excerpt
    FROM conds AS c
    JOIN spans AS s ON s.run_id = c.run_id AND s.case_id = c.case_id AND s.file = c.file_rel
    WHERE s.status = 'error'
      AND (c.labels['service'] IS NULL OR lower(s.service) = lower(c.labels['service']))
)
SELECT run_id, case_id, bucket, check_id, cond_idx, 1 AS rank, what AS detail,
       file AS evidence_file, '$.spans[' || si || ']' AS evidence_path, NULL AS evidence_line,
       left(excerpt, 300) AS evidence_excerpt
FROM hits
WHERE coalesce(len(keywords), 0) = 0

UNION ALL
SELECT h.run_id, h.case_id, h.bucket, h.check_id, h.cond_idx, 1,
       h.what || ': keyword "' || kw.kw || '" in ' || t.path,
       h.file, t.path, NULL, left(t.value_text, 300)
FROM hits AS h
CROSS JOIN unnest(h.keywords) AS kw(kw)
JOIN sj AS t ON t.run_id = h.run_id AND t.case_id = h.case_id AND t.file = h.file
            AND t.si = h.si AND t.type = 'string'
WHERE contains(lower(t.value_text), lower(kw.kw));

CREATE OR REPLACE TEMP VIEW mx_miss_span_error_any AS
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx,
       'no error span' || coalesce(' of service ' || c.labels['service'], '') || ' in '
           || c.file_rel
           || CASE WHEN coalesce(len(c.keywords), 0) > 0
                   THEN ' contains any of ' || array_to_string(c.keywords, ' | ')
                   ELSE '' END AS detail
FROM mx_cond AS c
WHERE c.method = 'span_error_any';
