-- The instance's current auto-checkpoint threshold, as DuckDB prints it (e.g. '16.0 MiB'), read
-- by rcaeval.store.checkpoints_deferred so it can set it back exactly afterwards.
SELECT current_setting('checkpoint_threshold') AS checkpoint_threshold;
