-- The second pass's semantic verdicts (registered as __j_semantic_in) into j_semantic_check.
INSERT INTO j_semantic_check BY NAME SELECT * FROM __j_semantic_in;
