-- case_meta upsert by (run_id, case_id): the rows registered as __rcaeval_case_meta replace
-- those keys' rows (which case of which suite, its rules_hash and scoring profile).
DELETE FROM case_meta
WHERE (run_id, case_id) IN (SELECT run_id, case_id FROM __rcaeval_case_meta);

INSERT INTO case_meta BY NAME SELECT * FROM __rcaeval_case_meta;
