-- Scenario lab-stale-statistics: a bulk import lands 200,000 pending orders and the loader
-- analyzes the table; a second job then ships them all at once. lab_orders has autovacuum
-- off, so its statistics still say half the table is pending: the backlog count flips from
-- an index scan on lab_orders_status to a sequential scan of every row.
INSERT INTO lab_orders (aid, status)
  SELECT 1 + (g * 53) % 100000, 'pending' FROM generate_series(1, 200000) g;
ANALYZE lab_orders;
UPDATE lab_orders SET status = 'shipped' WHERE status = 'pending' AND id > 200000;
