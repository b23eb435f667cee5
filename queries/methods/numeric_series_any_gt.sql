-- Evidence method numeric_series_any_gt (docs/judge.md "Critical-evidence methods"): holds
-- when a point of series `series` (labels matching exactly) in `file` (default metrics.json)
-- exceeds `threshold`; evidences/metrics.json is read via raw_metric_point, any other file of
-- the same shape via raw_json ($.series[i].name / .labels / .points[j][1]).
-- Only finite points compare: DuckDB orders NaN above every number (NaN > 2.0 is true), and
-- a NaN or infinite point is not a measurement (docs/judge.md "Non-finite metric points"),
-- so both are counted as facts (facts/evidence.sql) and never exceed a threshold.
-- Registered by file name (rcaeval/_vocab.py EVIDENCE_METHODS); reads mx_cond / fx_json
-- (facts/methods.sql). Defines mx_w_numeric_series_any_gt (every witness) and
-- mx_miss_numeric_series_any_gt (the detail when nothing holds).

CREATE OR REPLACE TEMP VIEW mx_w_numeric_series_any_gt AS
-- over metrics.json (raw_metric_point)
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 1 AS rank,
       p.name || coalesce(' ' || p.series_id, '') || ' = ' || p.value::VARCHAR
           || coalesce(' at ' || strftime(p.ts, '%Y-%m-%dT%H:%M:%SZ'), '')
           || ' > ' || c.threshold::VARCHAR AS detail,
       'evidences/metrics.json' AS evidence_file,
       '$.series[' || p.series_idx::VARCHAR || ']' AS evidence_path, NULL AS evidence_line,
       p.name || ' ' || coalesce(p.labels::VARCHAR, '{}') || ' = ' || p.value::VARCHAR
           AS evidence_excerpt
FROM mx_cond AS c
JOIN j_raw_metric_point AS p ON p.run_id = c.run_id AND p.case_id = c.case_id
                          AND p.name = c.series
WHERE c.method = 'numeric_series_any_gt' AND c.file_rel = 'evidences/metrics.json'
  AND isfinite(p.value) AND p.value > c.threshold
  AND coalesce(list_bool_and(list_transform(map_keys(c.labels),
                                            lambda lk: p.labels[lk] = c.labels[lk])), true)

UNION ALL
-- over any other JSON file of the metrics.json shape (raw_json)
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
  AND isfinite(s.value) AND s.value > c.threshold
  AND coalesce(list_bool_and(list_transform(map_keys(c.labels),
                                            lambda lk: s.labels[lk] = c.labels[lk])), true);

CREATE OR REPLACE TEMP VIEW mx_miss_numeric_series_any_gt AS
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx,
       'no point of series ' || c.series
           || CASE WHEN cardinality(c.labels) > 0 THEN ' ' || c.labels::VARCHAR ELSE '' END
           || ' in ' || c.file_rel || ' exceeds ' || c.threshold::VARCHAR AS detail
FROM mx_cond AS c
WHERE c.method = 'numeric_series_any_gt';
