-- After the restore: the statement statistics start empty for the next scenario.
SELECT pg_stat_statements_reset();
