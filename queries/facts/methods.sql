-- Critical-evidence methods, shared inputs (docs/judge.md "Critical-evidence methods"):
-- mx_cond, one row per method condition in scope (rule_condition with ctype 'method', its
-- file resolved to a bundle path in `file_rel`), and mx_json (fx_json with the index-free
-- path `path_star`). Each method is one file queries/methods/<method>.sql, registered by name
-- (rcaeval/_vocab.py EVIDENCE_METHODS), that reads these and defines mx_w_<method> (its
-- witnesses) and mx_miss_<method> (its detail when nothing holds); the judge unions them into
-- mx_witness / mx_miss and judge/method_eval.sql picks each condition's first witness.

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
