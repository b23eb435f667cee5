-- Scenario lab-connection-exhaustion (a pgbench script, many clients): each client holds
-- its connection in a long sleep.
SELECT pg_sleep(3600);
