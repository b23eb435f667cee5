-- The connection settings extraction changes while it writes (queries/extract/bulk_settings.sql),
-- read first so they can be restored exactly afterwards. One row: threads, checkpoint_threshold.
SELECT current_setting('threads'), current_setting('checkpoint_threshold');
