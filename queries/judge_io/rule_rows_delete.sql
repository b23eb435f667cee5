-- Before a rule load inserts its rows: delete from rule table {table} every row of the
-- (case_id, rules_hash) pairs being loaded, so loading the same rules again replaces them
-- (rcaeval.judge._load.load_rules, one transaction over all rule tables).
-- {table}: one of rcaeval.judge._rules.RULE_TABLES. Input: __rcaeval_rule_keys (case_id,
-- rules_hash), the loaded rule_bucket_param rows' keys.
DELETE FROM {table} WHERE (case_id, rules_hash) IN (SELECT case_id, rules_hash FROM __rcaeval_rule_keys);
