-- Critical-evidence methods, shared inputs (docs/judge.md "Critical-evidence methods"):
-- mx_cond, one row per method condition in scope (rule_condition with ctype 'method', its
-- file resolved to a bundle path in `file_rel`), and mx_json (fx_json with the index-free
-- path `path_star`, for the files named by some condition's `file_rel`). Each method is one file queries/methods/<method>.sql, registered by name
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

-- mx_json holds only the files some method condition of the run reads (mx_cond.file_rel):
-- a method joins its conditions to mx_json on the file, and the index-free path is a regex
-- rewrite too costly to run over every JSON value of a bundle.
CREATE OR REPLACE TEMP VIEW mx_json AS
SELECT j.*, regexp_replace(j.path, '\[\d+\]', '[*]', 'g') AS path_star
FROM fx_json AS j
SEMI JOIN (SELECT DISTINCT run_id, case_id, file_rel FROM mx_cond) AS f
       ON f.run_id = j.run_id AND f.case_id = j.case_id AND f.file_rel = j.file;
