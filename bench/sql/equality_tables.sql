-- bench/judge_equality.py: the judging results of a store, every eval_* base table by name.
SELECT table_name
FROM information_schema.tables
WHERE table_type = 'BASE TABLE' AND table_schema = 'main' AND table_name LIKE 'eval\_%' ESCAPE '\'
ORDER BY table_name;
