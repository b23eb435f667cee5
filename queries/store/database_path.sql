-- The file of the current database (NULL for an in-memory one): rcaeval.store.wal_bytes reads
-- the size of its write-ahead log, <path>.wal, to decide when to checkpoint.
SELECT path FROM duckdb_databases() WHERE database_name = current_database();
