-- Settings while extraction writes its batches ({threads} is filled in by
-- rcaeval/extract/_batch.py; afterwards the value read by bulk_settings_read.sql is put back
-- the same way).
--   threads: inserting Arrow rows runs on one DuckDB thread. The worker processes are the
--     parallel part, and a parallel insert costs more CPU (and, next to busy workers, more wall
--     time) than a serial one.
-- Checkpoints are not a setting here: extraction runs inside rcaeval.store.checkpoints_deferred
-- and checkpoints between batches (docs/extract.md, "Batching and parallelism").
SET threads = {threads};
