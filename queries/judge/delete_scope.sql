-- Before a judging pass writes its rows: remove the rows of eval table {table} (eval_fact,
-- eval_check, eval_bucket, eval_judgment, eval_detector_hit and the semantic shadow's tables)
-- that belong to the (run, case) pairs of this pass (j_scope), so re-judging replaces them
-- and never duplicates them. Decides nothing; runs inside write_results's transaction.
DELETE FROM {table} WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM j_scope);
