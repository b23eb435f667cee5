-- Scenario lab-lock-contention (a pgbench script, one client): a transaction takes an
-- exclusive lock on pgbench_accounts and stays open, so every write to it waits.
BEGIN;
LOCK TABLE pgbench_accounts IN EXCLUSIVE MODE;
SELECT pg_sleep(3600);
END;
