-- The database instance's DuckDB worker threads (rcaeval.store.checkpoint_memory: a
-- checkpoint's memory limit grows with them, since DuckDB checkpoints row groups in parallel;
-- rcaeval.store.threads_lowered: the count it sets back).
SELECT current_setting('threads')::BIGINT AS threads;
