-- The lab service's read: one account's balance (psql variable :aid).
SELECT abalance FROM pgbench_accounts WHERE aid = :'aid';
