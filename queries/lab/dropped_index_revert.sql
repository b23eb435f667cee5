-- Revert of lab-dropped-index: the primary key is rebuilt.
ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid);
