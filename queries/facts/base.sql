-- Stage-1 facts: one row per (run_id, case_id, fact) for every stage-1 catalog fact and every
-- declared detector. Of a fact's rows (facts/trace.sql, evidence.sql, analysis.sql,
-- indicators.sql, answer.sql, output.sql) the first by (rank, evidence) decides; a witness fact with no row is false,
-- with the catalog description saying what was looked for.
CREATE OR REPLACE TEMP VIEW fact_rows AS
SELECT * FROM fx_trace
UNION ALL BY NAME SELECT * FROM fx_evidence
UNION ALL BY NAME SELECT * FROM fx_integrity
UNION ALL BY NAME SELECT * FROM fx_analysis
UNION ALL BY NAME SELECT * FROM fx_report_analysis
UNION ALL BY NAME SELECT * FROM fx_indicator
UNION ALL BY NAME SELECT * FROM fx_answer
UNION ALL BY NAME SELECT * FROM fx_output;

-- The pick is an ordered aggregate (a hash aggregate keeping one row per group) rather than
-- a row_number() window: witness facts have many rows per run (one per metric point, per log
-- line), and sorting them all cost more than computing them. Rows that tie on every ordering
-- column are identical in every picked column, so the pick is deterministic.
CREATE OR REPLACE TEMP VIEW fact_picked AS
SELECT run_id, case_id, fact, unnest(picked)
FROM (
    SELECT run_id, case_id, fact,
           first({'value': value, 'detail': detail, 'evidence_file': evidence_file,
                  'evidence_path': evidence_path, 'evidence_line': evidence_line,
                  'evidence_excerpt': evidence_excerpt}
                 ORDER BY value DESC, rank, evidence_file NULLS LAST,
                          evidence_line NULLS LAST, evidence_path NULLS LAST, detail,
                          evidence_excerpt NULLS LAST) AS picked
    FROM fact_rows
    GROUP BY run_id, case_id, fact
);

CREATE OR REPLACE TEMP VIEW fact_base AS
SELECT k.run_id, k.case_id, c.fact,
       coalesce(p.value, false) AS value,
       coalesce(p.detail, 'not observed: ' || c.description) AS detail,
       p.evidence_file, p.evidence_path, p.evidence_line, p.evidence_excerpt
FROM j_scope AS k
CROSS JOIN fact_catalog AS c
LEFT JOIN fact_picked AS p
       ON p.run_id = k.run_id AND p.case_id = k.case_id AND p.fact = c.fact
WHERE c.stage = 1
UNION ALL
SELECT run_id, case_id, fact, value, detail, evidence_file, evidence_path, evidence_line,
       evidence_excerpt
FROM fact_picked
WHERE starts_with(fact, 'detector.');
