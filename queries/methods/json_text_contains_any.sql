-- Evidence method json_text_contains_any (docs/judge.md "Critical-evidence methods"): holds
-- when a string value AT OR UNDER `path` of evidences/<file> (the whole document when the rule
-- gives no path) contains one of `needles` (case-insensitive). Paths match by the index-free
-- form; a RE2 prefix regex runs only when the rule names an explicit [N].
-- Registered by file name (rcaeval/_vocab.py EVIDENCE_METHODS); reads mx_cond / mx_json
-- (facts/methods.sql). Defines mx_w_json_text_contains_any (every witness) and
-- mx_miss_json_text_contains_any (the detail when nothing holds).

CREATE OR REPLACE TEMP VIEW mx_w_json_text_contains_any AS
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx, 1 AS rank,
       'needle "' || nd.nd || '" in ' || j.file || ' ' || j.path AS detail,
       j.file AS evidence_file, j.path AS evidence_path, NULL AS evidence_line,
       left(j.value_text, 300) AS evidence_excerpt
FROM mx_cond AS c
CROSS JOIN unnest(c.keywords) AS nd(nd)
JOIN mx_json AS j ON j.run_id = c.run_id AND j.case_id = c.case_id AND j.file = c.file_rel
WHERE c.method = 'json_text_contains_any' AND j.type = 'string'
  AND (c.path_star IS NULL
       OR (starts_with(j.path_star, c.path_star)
           AND (length(j.path_star) = length(c.path_star)
                OR substr(j.path_star, length(c.path_star) + 1, 1) IN ('.', '['))
           AND (NOT c.path_has_index OR regexp_matches(j.path, c.path_prefix_regex))))
  AND contains(lower(j.value_text), lower(nd.nd));

CREATE OR REPLACE TEMP VIEW mx_miss_json_text_contains_any AS
SELECT c.run_id, c.case_id, c.bucket, c.check_id, c.cond_idx,
       'no string ' || coalesce('at/under ' || c.path || ' ', '') || 'in ' || c.file_rel
           || ' contains any of ' || array_to_string(c.keywords, ' | ') AS detail
FROM mx_cond AS c
WHERE c.method = 'json_text_contains_any';
