-- Scenario lab-dropped-index: the primary key of pgbench_accounts is dropped, so every
-- lookup by aid becomes a sequential scan.
ALTER TABLE pgbench_accounts DROP CONSTRAINT pgbench_accounts_pkey;
