-- The columns of one semantic-shadow table (eval_semantic, eval_semantic_check,
-- eval_judgment_blended), as DESCRIBE gives them: name, then DuckDB type, in declaration
-- order. rcaeval.semantic._flow builds the Arrow schema of the rows it records from them.
-- {table}: the table's name.
DESCRIBE {table};
