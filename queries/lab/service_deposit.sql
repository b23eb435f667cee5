-- The lab service's write: a deposit into one account and its history row (psql variables
-- :aid, :delta). One line, so the server log's STATEMENT line holds all of it.
WITH moved AS (UPDATE pgbench_accounts SET abalance = abalance + (:'delta')::int WHERE aid = (:'aid')::int RETURNING aid, bid, abalance), logged AS (INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) SELECT 1, bid, aid, (:'delta')::int, now() FROM moved) SELECT abalance FROM moved;
