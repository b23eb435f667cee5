-- eval_judgment: one row per judged (run, case) of this pass (registered by write_results as
-- __rcaeval_judgments, with its judgment.json packet); the pass's old rows are already gone.
INSERT INTO eval_judgment BY NAME SELECT * FROM __rcaeval_judgments;
