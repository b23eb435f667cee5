-- The lab service's write: a deposit into one account (psql variables :aid, :delta).
UPDATE pgbench_accounts SET abalance = abalance + :'delta' WHERE aid = :'aid' RETURNING abalance;
