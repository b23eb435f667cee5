-- Write the write-ahead log into the database file now (rcaeval.store.checkpoint): the judge
-- calls it between chunks, once a chunk's input tables are dropped and DuckDB's cache given
-- back, so the checkpoint's own memory (it re-compresses the row groups the commits appended
-- to; judgment_json text is most of it) comes on top of the least the process holds.
CHECKPOINT;
