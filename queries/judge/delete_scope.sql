-- Before a judgment is written: remove the rows of eval table {table} (each {judged_table}
-- the store has: eval_fact, eval_check, eval_bucket, eval_judgment, eval_detector_hit, the
-- trajectory tables and the semantic shadow's tables) that belong to the (run, case) pairs
-- being written (__rcaeval_judgments: the eval_judgment rows of a judged chunk, or of the
-- unloadable cases), so re-judging replaces them and never duplicates them. Decides nothing;
-- runs inside the writer's transaction.
DELETE FROM {table} WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __rcaeval_judgments);
