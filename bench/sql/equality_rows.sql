-- bench/judge_equality.py: every row of one eval_* table ({table}, quoted by the caller) in one
-- order that does not depend on the order rows were written in.
SELECT * FROM {table} ORDER BY ALL;
