-- Stage-3 fact answer.structured_prose_disagree (docs/judge.md "Structured root causes"):
-- when the answer carries a structured root cause, the diagnosis is decided by it
-- (buckets/diagnosis.sql) and the prose detectors' hard checks become a consistency check.
-- The fact holds when the two disagree: the structured family/component match the truth
-- while a non-soft prose hard check fails, or they do not while every one passes. Reads the
-- diagnosis rows of check_eval (judge/conditions.sql) as evaluated with the stage-1 and
-- stage-2 facts, and fx_answer_match (facts/answer.sql).
CREATE OR REPLACE TEMP VIEW fact_answer_consistency AS
WITH prose AS (
    SELECT run_id, case_id,
           bool_and(passed) FILTER (WHERE kind = 'hard' AND NOT soft) AS ok,
           string_agg(check_id, ', ' ORDER BY ord)
               FILTER (WHERE kind = 'hard' AND NOT soft AND NOT passed) AS failed
    FROM check_eval
    WHERE bucket = 'diagnosis'
    GROUP BY run_id, case_id
)
SELECT k.run_id, k.case_id, 'answer.structured_prose_disagree' AS fact,
       m.run_id IS NOT NULL
           AND (m.family_ok AND m.component_ok) IS DISTINCT FROM coalesce(p.ok, true) AS value,
       CASE WHEN m.run_id IS NULL
            THEN 'no structured root cause judged (none stated, or no ground-truth family): '
                 || 'the prose detectors decide'
            ELSE 'structured: ' || CASE WHEN m.family_ok AND m.component_ok THEN 'matches' ELSE
           'does not match' END || ' the ground truth (family ' || m.family
           || coalesce(', component ' || m.component, '') || '); prose hard checks: '
           || CASE WHEN coalesce(p.ok, true) THEN 'all pass'
                   ELSE 'failed ' || p.failed END END AS detail,
       m.file AS evidence_file, m.path AS evidence_path, NULL::INTEGER AS evidence_line,
       m.family || coalesce(' / ' || m.component, '') AS evidence_excerpt
FROM j_scope AS k
LEFT JOIN fx_answer_match AS m ON m.run_id = k.run_id AND m.case_id = k.case_id
LEFT JOIN prose AS p ON p.run_id = k.run_id AND p.case_id = k.case_id;
