-- Extraction order of every raw row (docs/extract.md, docs/judge.md "Chunks and memory"):
-- `bundle_seq` numbers the extracted case runs 1, 2, 3, ... in the order extraction wrote
-- them, and every raw row carries its case run's number. A judging chunk selects its raw rows
-- with `bundle_seq BETWEEN lo AND hi` (queries/judge/chunk_inputs.sql), which DuckDB answers
-- from the row groups' min/max statistics: a chunk reads its own rows, never the whole raw
-- store. Rows written before this migration (or inserted by hand) keep NULL and are still
-- found (chunks also take NULL rows), only without the pruning; re-extracting numbers them.
ALTER TABLE raw_bundle ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_file ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_json ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_log_line ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_telemetry ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_metric_point ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_query ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_event ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_patch_item ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_patch_ref ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
ALTER TABLE raw_output_sentence ADD COLUMN IF NOT EXISTS bundle_seq BIGINT;
