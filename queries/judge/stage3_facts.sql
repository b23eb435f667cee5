-- Stage-3 facts (facts/contract.sql: contract.*, which need the workflow checks) appended to
-- j_fact, then every check evaluated again with them in j_check_eval: the rows the bucket
-- files (buckets/*.sql) read. Through j_fact3 for the same reason as stage2_facts.sql.
CREATE OR REPLACE TEMP TABLE j_fact3 AS
SELECT run_id, case_id, fact, value, detail, evidence_file, evidence_path, evidence_line,
       evidence_excerpt
FROM fact_contract
UNION ALL
SELECT run_id, case_id, fact, value, detail, evidence_file, evidence_path, evidence_line,
       evidence_excerpt
FROM fact_answer_consistency;

INSERT INTO j_fact SELECT * FROM j_fact3;

CREATE OR REPLACE TEMP TABLE j_check_eval AS
SELECT * FROM check_eval;
