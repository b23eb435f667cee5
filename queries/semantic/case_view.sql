-- One case run's two judgments side by side (rcaeval explain, docs/semantic.md): the shadow's
-- row and, per diagnosis check, the deterministic and semantic verdicts with votes and spread.
-- Parameters: $run_id, $case_id. The blended judgment itself is read from
-- eval_judgment_blended.judgment_json.
SELECT c.check_id, c.kind, c.det_passed, c.sem_passed, c.votes_pass, c.votes_fail, c.spread,
       c.rationale
FROM eval_semantic_check AS c
JOIN rule_check AS r ON r.check_id = c.check_id AND r.bucket = 'diagnosis'
JOIN case_meta AS m ON m.run_id = c.run_id AND m.case_id = c.case_id
                   AND r.case_id = m.case_id AND r.rules_hash = m.rules_hash
WHERE c.run_id = $run_id AND c.case_id = $case_id
ORDER BY r.ord, c.check_id;
