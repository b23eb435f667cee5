-- Which elided JSON containers of the chunk to rebuild (docs/extract.md "raw_json"). A bulk
-- container whose values a typed raw table holds (metrics.json points, logs.json entries) is
-- stored as one raw_json row carrying `elided_json`; no fact reads inside it, but a rule's
-- evidence method may name the file (json_text_contains_any / json_list_nonempty /
-- numeric_series_any_gt by `file`, keyword_any by `source`). Decides: a container is rebuilt
-- when a method condition of its case names its file, plainly or as a path under the bundle
-- (`x.json` and `evidences/x.json` both name evidences/x.json) — a superset of what any
-- method reads, so every method sees the file's values exactly as if none had been elided —
-- except for numeric_series_any_gt over metrics.json, which reads raw_metric_point instead.
-- Reads raw_json within the chunk's bundle_seq range (judge/chunk_seq.sql; j_raw_json
-- leaves the text out). Output (run_id, case_id, file, path, elided_json), ordered; the judge
-- turns it into rows (rcaeval.extract.elided_table) and judge/elided_json_insert.sql appends
-- them to j_raw_json.
SELECT j.run_id, j.case_id, j.file, j.path, j.elided_json
FROM raw_json AS j
SEMI JOIN j_scope AS k ON k.run_id = j.run_id AND k.case_id = j.case_id
WHERE (j.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
       OR j.bundle_seq IS NULL)
  AND j.elided_json IS NOT NULL
  AND EXISTS (
      SELECT 1
      FROM rule_condition AS c
      JOIN j_scope AS k ON k.case_id = c.case_id AND k.rules_hash = c.rules_hash
      WHERE c.ctype = 'method' AND k.run_id = j.run_id AND k.case_id = j.case_id
        AND j.file IN (c.file, 'evidences/' || c.file, c.source, 'evidences/' || c.source)
        -- numeric_series_any_gt reads evidences/metrics.json through raw_metric_point
        AND NOT (c.method = 'numeric_series_any_gt' AND j.file = 'evidences/metrics.json')
  )
ORDER BY j.run_id, j.case_id, j.file, j.path;
