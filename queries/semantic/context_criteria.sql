-- Semantic context (docs/semantic.md), the criteria: each condition of a diagnosis check in
-- words -- a detector's description from judge.yaml, a fact's catalog description -- with
-- whether the answer must (expect true) or must not (expect false) satisfy it. One row per
-- (case version, check, condition) among the resolved case runs of j_scope.
SELECT DISTINCT c.case_id, c.rules_hash, c.check_id, c.cond_idx, c.ctype, c.name, c.expect,
       CASE WHEN c.ctype = 'detector' THEN d.description ELSE f.description END AS description
FROM rule_condition AS c
JOIN (SELECT DISTINCT case_id, rules_hash FROM j_scope WHERE resolved) AS k
  ON k.case_id = c.case_id AND k.rules_hash = c.rules_hash
LEFT JOIN rule_detector AS d
  ON c.ctype = 'detector' AND d.case_id = c.case_id AND d.rules_hash = c.rules_hash
 AND d.detector_id = c.name
LEFT JOIN fact_catalog AS f ON c.ctype = 'fact' AND f.fact = c.name
WHERE c.bucket = 'diagnosis'
ORDER BY c.case_id, c.rules_hash, c.check_id, c.cond_idx;
