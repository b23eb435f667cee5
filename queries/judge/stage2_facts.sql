-- Stage-2 facts (facts/derived.sql, computed from the stage-1 rows of j_fact) appended to
-- j_fact. They go through j_fact2 first: fact_derived reads j_fact, which must not change
-- while it is read.
CREATE OR REPLACE TEMP TABLE j_fact2 AS
SELECT run_id, case_id, fact, value, detail, evidence_file, evidence_path, evidence_line,
       evidence_excerpt
FROM fact_derived;

INSERT INTO j_fact SELECT * FROM j_fact2;
