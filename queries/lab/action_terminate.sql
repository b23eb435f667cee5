-- apply_action terminate_backend: end one client backend of the lab database (never the
-- calling session); true when it was terminated.
SELECT COALESCE(bool_or(pg_terminate_backend(pid)), false)
FROM pg_stat_activity
WHERE pid = :'pid'::int AND backend_type = 'client backend' AND pid <> pg_backend_pid();
