-- Record one chunk's semantic shadow (docs/semantic.md), inside the caller's transaction.
-- Every (run, case) judged in the chunk (__sem_keys) loses its previous shadow rows -- a new
-- deterministic judgment voids the old shadow -- then gets this pass's: eval_semantic (status,
-- usage, both files), eval_semantic_check (deterministic vs semantic per diagnosis check) and,
-- for blended cases whose packet is ok, eval_judgment_blended (the second pass).
DELETE FROM eval_semantic WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __sem_keys);
DELETE FROM eval_semantic_check
WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __sem_keys);
DELETE FROM eval_judgment_blended
WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __sem_keys);
INSERT INTO eval_semantic BY NAME SELECT * FROM __sem_rows;
INSERT INTO eval_semantic_check BY NAME SELECT * FROM __sem_checks;
INSERT INTO eval_judgment_blended BY NAME SELECT * FROM __sem_blended;
