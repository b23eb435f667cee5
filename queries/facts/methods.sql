-- Critical-evidence methods (seed 000 step 6; docs/registry.md "Critical-evidence methods"):
-- one row per (run_id, case_id, bucket, check_id, cond_idx) of every method condition, with
-- `holds` and the first piece of evidence that made it hold.
--   keyword_any             a log line (source 'logs': logs/* and evidences/logs.json) or a
--                           line / string value of the named evidence file contains a keyword
--   json_list_nonempty      the value at `path` of evidences/<file> is a non-empty array
--   json_text_contains_any  a string value AT OR UNDER `path` (the whole document only when
--                           the rule gives no path) contains a needle
--   numeric_series_any_gt   a point of series `series` (labels matching exactly) > threshold;
--                           metrics.json via raw_metric_point, other files via raw_json
--                           ($.series[i].name / .labels / .points[j][1])
-- Paths match by equality of the index-free form (`[*]` for every index); a RE2 regex runs
-- only when the rule names an explicit [N]. Keywords and needles are case-insensitive.
-- A condition with no witness whose file(s) exist but were not parsed (raw_file status other
-- than ok / not_utf8: parse_error, too_large, outside_bundle, unreadable) says so in its
-- detail, with extraction's status and detail, instead of only "no ... contains ...".

CREATE OR REPLACE TEMP VIEW mx_cond AS
SELECT k.run_id, k.case_id, c.*,
       CASE WHEN c.file IS NULL THEN NULL
            WHEN contains(c.file, '/') THEN c.file
            ELSE 'evidences/' || c.file END AS file_rel
FROM rule_condition AS c
JOIN j_scope AS k ON k.case_id = c.case_id AND k.rules_hash = c.rules_hash
WHERE c.ctype = 'method';

CREATE OR REPLACE TEMP VIEW mx_json AS
SELECT j.*, regexp_replace(j.path, '\[\d+\]', '[*]', 'g') AS path_star
FROM fx_json AS j;

CREATE OR REPLACE TEMP VIEW mx_witness AS
-- keyword_any over log lines
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
-- keyword_any over the string values of a named JSON evidence file
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 2,
       'keyword "' || kw.kw || '" in ' || j.file || ' ' || j.path,
       j.file, j.path, NULL, left(j.value_text, 300)
FROM mx_cond AS c
CROSS JOIN unnest(c.keywords) AS kw(kw)
JOIN fx_json AS j ON j.run_id = c.run_id AND j.case_id = c.case_id
WHERE c.method = 'keyword_any' AND c.source <> 'logs'
  AND j.file IN (c.source, 'evidences/' || c.source) AND j.type = 'string'
  AND contains(lower(j.value_text), lower(kw.kw))

UNION ALL
-- json_list_nonempty
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 1,
       j.path || ' is a list of ' || j.length::VARCHAR || ' element(s)',
       j.file, j.path, NULL, NULL
FROM mx_cond AS c
JOIN mx_json AS j ON j.run_id = c.run_id AND j.case_id = c.case_id AND j.file = c.file_rel
                 AND j.path_star = c.path_star
WHERE c.method = 'json_list_nonempty' AND j.type = 'array' AND j.length > 0
  AND (NOT c.path_has_index OR regexp_matches(j.path, c.path_regex))

UNION ALL
-- json_text_contains_any, path-scoped (or the whole document when the rule has no path)
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 1,
       'needle "' || nd.nd || '" in ' || j.file || ' ' || j.path,
       j.file, j.path, NULL, left(j.value_text, 300)
FROM mx_cond AS c
CROSS JOIN unnest(c.keywords) AS nd(nd)
JOIN mx_json AS j ON j.run_id = c.run_id AND j.case_id = c.case_id AND j.file = c.file_rel
WHERE c.method = 'json_text_contains_any' AND j.type = 'string'
  AND (c.path_star IS NULL
       OR (starts_with(j.path_star, c.path_star)
           AND (length(j.path_star) = length(c.path_star)
                OR substr(j.path_star, length(c.path_star) + 1, 1) IN ('.', '['))
           AND (NOT c.path_has_index OR regexp_matches(j.path, c.path_prefix_regex))))
  AND contains(lower(j.value_text), lower(nd.nd))

UNION ALL
-- numeric_series_any_gt over metrics.json (raw_metric_point)
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 1,
       p.name || coalesce(' ' || p.series_id, '') || ' = ' || p.value::VARCHAR
           || coalesce(' at ' || strftime(p.ts, '%Y-%m-%dT%H:%M:%SZ'), '')
           || ' > ' || c.threshold::VARCHAR,
       'evidences/metrics.json', '$.series[' || p.series_idx::VARCHAR || ']', NULL,
       p.name || ' ' || coalesce(p.labels::VARCHAR, '{}') || ' = ' || p.value::VARCHAR
FROM mx_cond AS c
JOIN j_raw_metric_point AS p ON p.run_id = c.run_id AND p.case_id = c.case_id
                          AND p.name = c.series
WHERE c.method = 'numeric_series_any_gt' AND c.file_rel = 'evidences/metrics.json'
  AND p.value > c.threshold
  AND coalesce(list_bool_and(list_transform(map_keys(c.labels),
                                            lambda lk: p.labels[lk] = c.labels[lk])), true)

UNION ALL
-- numeric_series_any_gt over any other JSON file of the metrics.json shape (raw_json)
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 1,
       s.name || ' = ' || s.value::VARCHAR || ' > ' || c.threshold::VARCHAR,
       s.file, s.path, NULL, s.name || ' ' || coalesce(s.labels::VARCHAR, '{}') || ' = '
           || s.value::VARCHAR
FROM mx_cond AS c
JOIN (
    WITH files AS (
        SELECT DISTINCT run_id, case_id, file_rel FROM mx_cond
        WHERE method = 'numeric_series_any_gt' AND file_rel <> 'evidences/metrics.json'
    ),
    fj AS (
        SELECT j.* FROM fx_json AS j
        JOIN files AS f ON f.run_id = j.run_id AND f.case_id = j.case_id
                       AND f.file_rel = j.file
    ),
    pts AS (
        SELECT run_id, case_id, file, path, value_num AS value,
               regexp_extract(path, '^\$\.series\[(\d+)\]', 1) AS si
        FROM fj
        WHERE type = 'number'
          AND regexp_matches(path, '^\$\.series\[\d+\]\.points\[\d+\](?:\[1\]|\.value)$')
    ),
    names AS (
        SELECT run_id, case_id, file, regexp_extract(path, '^\$\.series\[(\d+)\]', 1) AS si,
               value_text AS name
        FROM fj
        WHERE type = 'string' AND regexp_matches(path, '^\$\.series\[\d+\]\.name$')
    ),
    labs AS (
        SELECT run_id, case_id, file, regexp_extract(path, '^\$\.series\[(\d+)\]', 1) AS si,
               map_from_entries(list(struct_pack(
                   k := coalesce(key, regexp_extract(path, '\.labels\.([^.\[]+)$', 1)),
                   v := value_text))) AS labels
        FROM fj
        WHERE regexp_matches(path, '^\$\.series\[\d+\]\.labels(?:\.[^.\[]+|\[".*"\])$')
          AND type IN ('string', 'number', 'boolean')
        GROUP BY run_id, case_id, file, si
    )
    SELECT pts.*, names.name, labs.labels
    FROM pts
    JOIN names USING (run_id, case_id, file, si)
    LEFT JOIN labs USING (run_id, case_id, file, si)
) AS s ON s.run_id = c.run_id AND s.case_id = c.case_id AND s.file = c.file_rel
      AND s.name = c.series
WHERE c.method = 'numeric_series_any_gt' AND c.file_rel <> 'evidences/metrics.json'
  AND s.value > c.threshold
  AND coalesce(list_bool_and(list_transform(map_keys(c.labels),
                                            lambda lk: s.labels[lk] = c.labels[lk])), true);

-- The files each method condition reads that exist but could not be parsed.
CREATE OR REPLACE TEMP VIEW mx_unread AS
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx,
       string_agg(f.file || CASE f.status WHEN 'parse_error' THEN ' not parsed ('
                                          ELSE ' not read (' END
                  || f.status || coalesce(': ' || f.detail, '') || ')', '; '
                  ORDER BY f.file) AS note
FROM mx_cond AS c
JOIN fx_file AS f ON f.run_id = c.run_id AND f.case_id = c.case_id
WHERE f.status NOT IN ('ok', 'not_utf8')
  AND CASE WHEN c.method = 'keyword_any' AND c.source = 'logs'
                THEN starts_with(f.file, 'logs/') OR f.file = 'evidences/logs.json'
           WHEN c.method = 'keyword_any'
                THEN f.file IN (c.source, 'evidences/' || c.source, 'logs/' || c.source)
           ELSE f.file = c.file_rel END
GROUP BY c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx;

CREATE OR REPLACE TEMP VIEW method_eval AS
WITH best AS (
    SELECT * FROM mx_witness
    QUALIFY row_number() OVER (
        PARTITION BY run_id, case_id, bucket, check_id, cond_idx
        ORDER BY rank, evidence_file, evidence_line NULLS LAST, evidence_path NULLS LAST,
                 detail) = 1
)
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx,
       b.run_id IS NOT NULL AS holds,
       coalesce(b.detail, CASE c.method
           WHEN 'keyword_any' THEN 'no ' || CASE WHEN c.source = 'logs' THEN 'log line'
                                                 ELSE 'line or string of ' || c.source END
                || ' contains any of ' || array_to_string(c.keywords, ' | ')
           WHEN 'json_list_nonempty' THEN 'no non-empty list at ' || c.path || ' in '
                || c.file_rel
           WHEN 'json_text_contains_any' THEN 'no string '
                || coalesce('at/under ' || c.path || ' ', '') || 'in ' || c.file_rel
                || ' contains any of ' || array_to_string(c.keywords, ' | ')
           WHEN 'numeric_series_any_gt' THEN 'no point of series ' || c.series
                || CASE WHEN cardinality(c.labels) > 0 THEN ' ' || c.labels::VARCHAR ELSE '' END
                || ' in ' || c.file_rel || ' exceeds ' || c.threshold::VARCHAR
       END || coalesce('; ' || u.note, '')) AS detail,
       b.evidence_file, b.evidence_path, b.evidence_line, b.evidence_excerpt
FROM mx_cond AS c
LEFT JOIN best AS b
       ON b.run_id = c.run_id AND b.case_id = c.case_id AND b.bucket = c.bucket
      AND b.check_id = c.check_id AND b.cond_idx = c.cond_idx
LEFT JOIN mx_unread AS u
       ON u.run_id = c.run_id AND u.case_id = c.case_id AND u.bucket = c.bucket
      AND u.check_id = c.check_id AND u.cond_idx = c.cond_idx;
