-- Evidence method keyword_any (docs/judge.md "Critical-evidence methods"): holds when a log
-- line (source 'logs': logs/* and evidences/logs.json) or a line / string value of the named
-- evidence file contains one of `keywords` (case-insensitive).
-- Registered by file name (rcaeval/_vocab.py EVIDENCE_METHODS); reads mx_cond / fx_json
-- (facts/methods.sql). Defines mx_w_keyword_any (every witness; rank 1 = a log line, 2 = a
-- JSON string value) and mx_miss_keyword_any (the detail when nothing holds).

CREATE OR REPLACE TEMP VIEW mx_w_keyword_any AS
-- over log lines
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 1 AS rank,
       'keyword "' || kw.kw || '" in ' || l.file || ':' || l.line_no::VARCHAR AS detail,
       l.file AS evidence_file, NULL::VARCHAR AS evidence_path, l.line_no AS evidence_line,
       left(l.text, 300) AS evidence_excerpt
FROM mx_cond AS c
CROSS JOIN unnest(c.keywords) AS kw(kw)
JOIN j_raw_log_line AS l ON l.run_id = c.run_id AND l.case_id = c.case_id
WHERE c.method = 'keyword_any'
  AND CASE WHEN c.source = 'logs'
           THEN starts_with(l.file, 'logs/') OR l.file = 'evidences/logs.json'
           ELSE l.file IN (c.source, 'evidences/' || c.source, 'logs/' || c.source) END
  AND contains(lower(l.text), lower(kw.kw))

UNION ALL
-- over the string values of a named JSON evidence file
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 2,
       'keyword "' || kw.kw || '" in ' || j.file || ' ' || j.path,
       j.file, j.path, NULL, left(j.value_text, 300)
FROM mx_cond AS c
CROSS JOIN unnest(c.keywords) AS kw(kw)
JOIN fx_json AS j ON j.run_id = c.run_id AND j.case_id = c.case_id
WHERE c.method = 'keyword_any' AND c.source <> 'logs'
  AND j.file IN (c.source, 'evidences/' || c.source) AND j.type = 'string'
  AND contains(lower(j.value_text), lower(kw.kw));

CREATE OR REPLACE TEMP VIEW mx_miss_keyword_any AS
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx,
       'no ' || CASE WHEN c.source = 'logs' THEN 'log line'
                     ELSE 'line or string of ' || c.source END
           || ' contains any of ' || array_to_string(c.keywords, ' | ') AS detail
FROM mx_cond AS c
WHERE c.method = 'keyword_any';
