-- The lab database after `pgbench -i`: statement statistics, the application role the
-- workload and the service connect as (not a superuser, so connection exhaustion reaches it),
-- and a read-only role for the agent's database views.
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
CREATE ROLE app LOGIN;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app;
CREATE ROLE lab_ro LOGIN IN ROLE pg_read_all_stats;
ALTER ROLE lab_ro SET default_transaction_read_only = on;
ALTER ROLE lab_ro SET statement_timeout = '5s';
GRANT SELECT ON ALL TABLES IN SCHEMA public TO lab_ro;
ANALYZE;
