-- Semantic context (docs/semantic.md), the checks: one row per diagnosis check of every
-- judged case run in j_scope whose bundle resolved (an unresolved bundle has no diagnosis to
-- second-guess), with the case's diagnosis mode. Read right after the first (deterministic)
-- judging pass, while its TEMP tables are on the connection. Order: run, case, check position.
SELECT k.run_id, k.case_id, k.case_type, k.rules_hash,
       coalesce(p.diagnosis_mode, 'deterministic_only') AS diagnosis_mode,
       r.check_id, r.kind, r.required, r.weight, r.combinator, r.ord, r.description
FROM j_scope AS k
JOIN rule_check AS r
  ON r.case_id = k.case_id AND r.rules_hash = k.rules_hash AND r.bucket = 'diagnosis'
LEFT JOIN rule_bucket_param AS p ON p.case_id = k.case_id AND p.rules_hash = k.rules_hash
WHERE k.resolved
ORDER BY k.run_id, k.case_id, r.ord, r.check_id;
