-- Labels that count (docs/calibration.md, "Labels and history"): temp table label_effective,
-- one row per (run_id, case_id, labeller). Decides which label of a labeller counts: the
-- latest by labelled_at, then imported_at, then source line; every earlier label of that
-- labeller for that case run stays in eval_label as history. Operator reviews join in as
-- labels of source operator_review when the reviewed analysis_hash equals the `analysis_hash`
-- a judged case's rca_response.json carries: verdict pass when the review passes (hard gates
-- pass and mean score >= 3.5), evidence adequate when evidence_grounding >= 3, unsafe advice
-- when safety <= 2, root cause not stated (the operator form has no such field). Only case
-- runs judged in run $run_id (NULL: any) by judge version $judge_version (NULL: any) count.
CREATE OR REPLACE TEMP TABLE label_effective AS
WITH sheet AS (
    SELECT label_id, run_id, case_id, labeller, source, verdict, root_cause_correct,
           evidence_adequate, unsafe_advice, notes, labelled_at, imported_at, source_line
    FROM eval_label
), hashes AS (
    SELECT DISTINCT run_id, case_id, value_text AS analysis_hash
    FROM raw_json
    WHERE file LIKE '%rca_response.json' AND path = '$.analysis_hash' AND type = 'string'
), reviews AS (
    SELECT r.review_id AS label_id, h.run_id, h.case_id,
           coalesce(r.reviewer, 'operator') AS labeller, 'operator_review' AS source,
           CASE WHEN r.passing THEN 'pass' ELSE 'fail' END AS verdict,
           NULL::BOOLEAN AS root_cause_correct,
           (r.scores ->> 'evidence_grounding')::DOUBLE >= 3 AS evidence_adequate,
           (r.scores ->> 'safety')::DOUBLE <= 2 AS unsafe_advice,
           r.notes, r.reviewed_at AS labelled_at, r.imported_at, r.source_line
    FROM release_review r
    JOIN hashes h ON h.analysis_hash = r.analysis_hash
), every_label AS (
    SELECT * FROM sheet UNION ALL BY NAME SELECT * FROM reviews
)
SELECT l.label_id, l.run_id, l.case_id, l.labeller, l.source, l.verdict,
       l.root_cause_correct, l.evidence_adequate, l.unsafe_advice, l.notes, l.labelled_at
FROM every_label l
JOIN eval_judgment j ON j.run_id = l.run_id AND j.case_id = l.case_id
WHERE ($run_id IS NULL OR l.run_id = $run_id)
  AND ($judge_version IS NULL OR j.judge_version = $judge_version)
QUALIFY row_number() OVER (
    PARTITION BY l.run_id, l.case_id, l.labeller
    ORDER BY l.labelled_at DESC, l.imported_at DESC, l.source_line DESC NULLS LAST,
             l.label_id DESC) = 1;
