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
-- Check rows and counts: bucket_checks / bucket_agg (queries/judge/bucket_rows.sql).
CREATE OR REPLACE TEMP VIEW bk_diagnosis_check AS
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
            WHEN hard_failed IS NULL THEN 'pass'
            ELSE 'fail' END AS status,
       CASE WHEN NOT resolved THEN 'bundle unresolved'
            ELSE CASE WHEN hard_failed IS NULL
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
            WHEN w_hard > 0 THEN w_hard_pass / w_hard ELSE 1.0 END AS frac_hard,
       CASE WHEN NOT resolved THEN NULL
            WHEN w_sup > 0 THEN w_sup_pass / w_sup ELSE 1.0 END AS frac_supporting
FROM a
LEFT JOIN sem AS s ON s.run_id = a.run_id AND s.case_id = a.case_id;
