-- Stage-1 facts as a table: j_fact gets one row per (run_id, case_id, fact) of fact_base
-- (facts/base.sql: catalog facts and detector.* facts), once the output detectors of the
-- chunk have run (facts/detector_match.sql). Stage-2 and stage-3 facts are appended to it
-- (stage2_facts.sql, stage3_facts.sql); eval_fact is written from it (write_facts.sql).
CREATE OR REPLACE TEMP TABLE j_fact AS
SELECT run_id, case_id, fact, value, detail, evidence_file, evidence_path, evidence_line,
       evidence_excerpt
FROM fact_base;
