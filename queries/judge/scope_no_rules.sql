-- Scope check: judged (case_id, rules_hash) pairs with no rule rows loaded (the judge
-- refuses them: InputError naming up to five).
SELECT k.case_id, k.rules_hash
FROM j_scope AS k
ANTI JOIN rule_bucket_param AS p ON p.case_id = k.case_id AND p.rules_hash = k.rules_hash
ORDER BY ALL
LIMIT 5;
