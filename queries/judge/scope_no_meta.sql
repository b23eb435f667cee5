-- Scope check: judged keys without a case_meta row (the judge refuses them: InputError
-- naming up to five).
SELECT k.run_id, k.case_id
FROM j_keys AS k
ANTI JOIN case_meta AS m ON m.run_id = k.run_id AND m.case_id = k.case_id
ORDER BY ALL
LIMIT 5;
