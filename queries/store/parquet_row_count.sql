-- How many rows one Parquet file holds: the count Store.import_parquet reports per table.
-- Param ?: the file.
SELECT count(*) FROM read_parquet(?);
