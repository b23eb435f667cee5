-- DuckDB's auto-checkpoint threshold for this database instance: a commit that leaves more
-- than $threshold in the write-ahead log checkpoints there and then. rcaeval.store.
-- checkpoints_deferred raises it while a judge writes its chunks (so a commit never
-- checkpoints in the middle of a chunk's working set) and sets it back afterwards.
-- $threshold: a DuckDB memory size such as '16.0 MiB' or '1GiB'.
SET checkpoint_threshold = $threshold;
