-- Evidence method json_list_nonempty (docs/judge.md "Critical-evidence methods"): holds when
-- the value at `path` of evidences/<file> is a non-empty array. Paths match by equality of
-- the index-free form (`[*]` for every index); a RE2 regex runs only when the rule names an
-- explicit [N].
-- Registered by file name (rcaeval/_vocab.py EVIDENCE_METHODS); reads mx_cond / mx_json
-- (facts/methods.sql). Defines mx_w_json_list_nonempty (every witness) and
-- mx_miss_json_list_nonempty (the detail when nothing holds).

CREATE OR REPLACE TEMP VIEW mx_w_json_list_nonempty AS
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 1 AS rank,
       j.path || ' is a list of ' || j.length::VARCHAR || ' element(s)' AS detail,
       j.file AS evidence_file, j.path AS evidence_path, NULL AS evidence_line,
       NULL AS evidence_excerpt
FROM mx_cond AS c
JOIN mx_json AS j ON j.run_id = c.run_id AND j.case_id = c.case_id AND j.file = c.file_rel
                 AND j.path_star = c.path_star
WHERE c.method = 'json_list_nonempty' AND j.type = 'array' AND j.length > 0
  AND (NOT c.path_has_index OR regexp_matches(j.path, c.path_regex));

CREATE OR REPLACE TEMP VIEW mx_miss_json_list_nonempty AS
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx,
       'no non-empty list at ' || c.path || ' in ' || c.file_rel AS detail
FROM mx_cond AS c
WHERE c.method = 'json_list_nonempty';
