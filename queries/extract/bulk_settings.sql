-- Settings while extraction writes its batches ({threads}, {checkpoint_threshold} are filled
-- in by rcaeval/extract/_batch.py; afterwards the values read by bulk_settings_read.sql are put
-- back the same way).
--   threads: inserting Arrow rows runs on one DuckDB thread. The worker processes are the
--     parallel part, and a parallel insert costs more CPU (and, next to busy workers, more wall
--     time) than a serial one.
--   checkpoint_threshold: DuckDB checkpoints when a commit leaves more than this in the WAL.
--     At the default (16 MiB) nearly every batch commit checkpointed, and a checkpoint's cost
--     grows with the store, so extraction slowed down as the store grew (40 s of 10,000 runs'
--     extraction went to commits). Raised, the WAL is checkpointed every few hundred MiB.
SET threads = {threads};
SET checkpoint_threshold = '{checkpoint_threshold}';
