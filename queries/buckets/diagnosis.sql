-- Bucket: diagnosis -- the quality of the final answer: hard checks encode
-- must-have conclusions and must-avoid misdiagnoses; supporting checks reward explanation.
-- Decides:
--   pass     every non-soft hard check passes (supporting and soft checks never change the
--            status; a soft one is named in the reason);
--   fail     some hard check fails;
--   not_evaluated  the bundle is unresolved.
-- Score fractions: frac_hard = passed hard weight / hard weight, frac_supporting = passed
-- supporting weight / supporting weight (1 when that list is empty); the profile turns them
-- into points (default 18 + 32). Mode `blended` scores exactly like deterministic_only (the
-- reason says so) unless this is the semantic shadow's second pass (docs/semantic.md): then
-- j_semantic_check holds the model's verdicts, judge/semantic_checks.sql has already put them
-- into the diagnosis rows of j_check_eval, and the reason counts them.
-- Structured root cause (docs/judge.md "Structured root causes"): when the answer states
-- its family (and component) as data and the case has a ground-truth family
-- (facts/answer.sql fx_answer_match), the synthetic hard check `structured_root_cause`
-- (first, ord -1) decides: pass iff the family (or a declared synonym) and the component
-- match; frac_hard is 1 or 0. The judge.yaml hard checks (the prose detectors) are still
-- evaluated and listed, as a consistency check (answer.structured_prose_disagree), and no
-- longer decide. The reason starts with which path decided: "structured: ..." or
-- "prose: ...".
-- Check rows and counts: bucket_checks / bucket_agg (queries/judge/bucket_rows.sql).
CREATE OR REPLACE TEMP VIEW bk_diagnosis_structured AS
SELECT m.run_id, m.case_id, 'diagnosis' AS bucket, 'structured_root_cause' AS check_id,
       'hard' AS kind, true AS required, false AS soft, 1.0::DOUBLE AS weight, -1 AS ord,
       m.family_ok AND m.component_ok AS passed,
       CASE WHEN m.family_ok AND m.component_ok THEN 'passed' ELSE 'failed' END
           || ' (structured root cause): family ' || m.family
           || CASE WHEN m.family_ok THEN ' matches' ELSE ' is not' END
           || ' the ground truth ' || m.truth_family
           || CASE WHEN m.truth_component IS NULL THEN ''
                   WHEN m.component IS NULL THEN '; no component stated (not checked)'
                   ELSE '; component ' || coalesce(m.component, '(none)')
                        || CASE WHEN m.component_ok THEN ' matches' ELSE ' is not' END
                        || ' ' || m.truth_component END AS reason,
       m.file AS evidence_file, m.path AS evidence_path, NULL::INTEGER AS evidence_line,
       m.family || coalesce(' / ' || m.component, '') AS evidence_excerpt
FROM fx_answer_match AS m
JOIN j_scope AS k ON k.run_id = m.run_id AND k.case_id = m.case_id
WHERE k.resolved;

CREATE OR REPLACE TEMP VIEW bk_diagnosis_check AS
SELECT * FROM bk_diagnosis_structured
UNION ALL
SELECT * FROM bucket_checks('diagnosis', false);

CREATE OR REPLACE TEMP VIEW bk_diagnosis AS
WITH a AS (
    SELECT g.*, p.diagnosis_mode
    FROM bucket_agg('diagnosis', false) AS g
    LEFT JOIN rule_bucket_param AS p
           ON p.case_id = g.case_id AND p.rules_hash = g.rules_hash
),
sem AS (
    SELECT run_id, case_id, count(*) FILTER (WHERE passed IS NOT NULL) AS n_sem,
           count(*) FILTER (WHERE passed IS NULL) AS n_tie
    FROM j_semantic_check
    GROUP BY run_id, case_id
)
SELECT a.run_id, a.case_id, 'diagnosis' AS bucket,
       CASE WHEN NOT resolved THEN 'not_evaluated'
            WHEN st.passed THEN 'pass'
            WHEN NOT st.passed THEN 'fail'
            WHEN hard_failed IS NULL THEN 'pass'
            ELSE 'fail' END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            WHEN st.run_id IS NOT NULL
            THEN 'structured: ' || st.reason || '; prose hard checks '
                 || CASE WHEN (hard_failed IS NULL) = st.passed THEN 'agree'
                         ELSE 'disagree' END
                 || CASE WHEN hard_failed IS NULL THEN ' (all ' || n_hard::VARCHAR || ' passed)'
                         ELSE ' (failed: ' || hard_failed || ')' END
                 || '; supporting ' || n_sup_pass::VARCHAR || '/' || n_sup::VARCHAR
                 || soft_note
            ELSE 'prose: ' || CASE WHEN hard_failed IS NULL
                      THEN 'all ' || n_hard::VARCHAR || ' hard check(s) passed'
                      ELSE 'hard check(s) failed: ' || hard_failed END
                 || '; supporting ' || n_sup_pass::VARCHAR || '/' || n_sup::VARCHAR
                 || CASE WHEN diagnosis_mode = 'blended' AND s.n_sem IS NOT NULL
                         THEN ' (mode blended: semantic shadow decided ' || s.n_sem::VARCHAR
                              || ' check(s), ' || s.n_tie::VARCHAR
                              || ' tie(s) kept deterministic)'
                         WHEN diagnosis_mode = 'blended'
                         THEN ' (mode blended: no semantic shadow, deterministic checks only)'
                         ELSE '' END
                 || soft_note END AS reason,
       NULL::DOUBLE AS frac,
       CASE WHEN NOT resolved THEN NULL
            WHEN st.run_id IS NOT NULL THEN CASE WHEN st.passed THEN 1.0 ELSE 0.0 END
            WHEN w_hard > 0 THEN w_hard_pass / w_hard ELSE 1.0 END AS frac_hard,
       CASE WHEN NOT resolved THEN NULL
            WHEN w_sup > 0 THEN w_sup_pass / w_sup ELSE 1.0 END AS frac_supporting
FROM a
LEFT JOIN sem AS s ON s.run_id = a.run_id AND s.case_id = a.case_id
LEFT JOIN bk_diagnosis_structured AS st ON st.run_id = a.run_id AND st.case_id = a.case_id;
