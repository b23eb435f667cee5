-- The lab database after `pgbench -i`: statement statistics, the application role the
-- workload and the service connect as (not a superuser, so connection exhaustion reaches it),
-- a read-only role for the agent's database views, and the orders behind the service's backlog
-- route (autovacuum off: the table is loaded in bulk and analyzed by its loader).
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
CREATE TABLE lab_orders (id bigserial PRIMARY KEY, aid int NOT NULL, status text NOT NULL,
                         created timestamptz NOT NULL DEFAULT now())
  WITH (autovacuum_enabled = false);
INSERT INTO lab_orders (aid, status)
  SELECT 1 + (g * 37) % 100000, CASE WHEN g % 1000 = 0 THEN 'pending' ELSE 'shipped' END
  FROM generate_series(1, 200000) g;
CREATE INDEX lab_orders_status ON lab_orders (status);
-- history rows are appended one at a time; a low fill factor takes a new page every few rows,
-- so a full tablespace shows in the next few writes
ALTER TABLE pgbench_history SET (fillfactor = 10);
CREATE ROLE app LOGIN;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app;
CREATE ROLE lab_ro LOGIN IN ROLE pg_read_all_stats;
ALTER ROLE lab_ro SET default_transaction_read_only = on;
ALTER ROLE lab_ro SET statement_timeout = '5s';
GRANT SELECT ON ALL TABLES IN SCHEMA public TO lab_ro;
ANALYZE;
