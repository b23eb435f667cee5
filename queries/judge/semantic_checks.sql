-- The semantic shadow's second judging pass (docs/semantic.md): the diagnosis checks of the
-- case runs in j_semantic_check take the semantic majority verdict instead of the
-- deterministic one; a tie (passed NULL) keeps the deterministic verdict. Only diagnosis rows
-- change, so every other bucket is judged exactly as in the first pass. The reason keeps the
-- deterministic reason; when the verdict flips, the evidence is the model's rationale in
-- semantic_packet_v1.json. Runs only when the caller passes semantic verdicts (second pass);
-- j_semantic_check is empty otherwise.
CREATE OR REPLACE TEMP TABLE j_check_eval_sem AS
SELECT e.run_id, e.case_id, e.bucket, e.check_id, e.kind, e.required, e.soft, e.weight, e.ord,
       coalesce(s.passed, e.passed) AS passed,
       CASE WHEN s.check_id IS NULL THEN e.reason
            ELSE 'semantic ' || CASE WHEN s.passed IS NULL THEN 'tie'
                                     WHEN s.passed THEN 'pass' ELSE 'fail' END
                 || ' (' || s.votes_pass::VARCHAR || ' pass / ' || s.votes_fail::VARCHAR
                 || ' fail' || CASE WHEN s.passed IS NULL
                                    THEN ', deterministic verdict kept' ELSE '' END || ')'
                 || coalesce(': ' || s.rationale, '') || '; deterministic: ' || e.reason
       END AS reason,
       CASE WHEN s.passed IS NOT NULL AND s.passed <> e.passed THEN 'semantic_packet_v1.json'
            ELSE e.evidence_file END AS evidence_file,
       CASE WHEN s.passed IS NOT NULL AND s.passed <> e.passed THEN NULL
            ELSE e.evidence_path END AS evidence_path,
       CASE WHEN s.passed IS NOT NULL AND s.passed <> e.passed THEN NULL
            ELSE e.evidence_line END AS evidence_line,
       CASE WHEN s.passed IS NOT NULL AND s.passed <> e.passed THEN s.rationale
            ELSE e.evidence_excerpt END AS evidence_excerpt
FROM j_check_eval AS e
LEFT JOIN j_semantic_check AS s
       ON e.bucket = 'diagnosis' AND s.run_id = e.run_id AND s.case_id = e.case_id
      AND s.check_id = e.check_id;
CREATE OR REPLACE TEMP TABLE j_check_eval AS SELECT * FROM j_check_eval_sem;
DROP TABLE j_check_eval_sem;
