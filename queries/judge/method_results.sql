-- Critical-evidence method conditions as a table: j_method holds method_eval
-- (judge/method_eval.sql, one row per method condition with `holds` and its first
-- evidence), read by the condition evaluation (judge/conditions.sql).
CREATE OR REPLACE TEMP TABLE j_method AS
SELECT * FROM method_eval;
