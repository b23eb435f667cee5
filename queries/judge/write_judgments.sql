-- eval_judgment: one row per judged (run, case) (registered as __rcaeval_judgments with its
-- judgment.json packet, by write_results for a judged chunk and by record_unloadable for the
-- cases the registry cannot supply); their old rows are already gone (judge/delete_scope.sql).
-- The one statement that writes eval_judgment.
INSERT INTO eval_judgment BY NAME SELECT * FROM __rcaeval_judgments;
