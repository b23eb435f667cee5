-- The connection setting extraction changes while it writes (queries/extract/bulk_settings.sql),
-- read first so it can be restored exactly afterwards. One row: threads.
SELECT current_setting('threads');
