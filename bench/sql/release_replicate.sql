-- A larger capture window for the release benchmark: the generated window repeated $k times,
-- each copy with its own capture ids (suffix '-r<copy>'), everything else as generated.
-- Used for sizes above what the sample generator writes in reasonable time (10M captures).
-- params: $src (the generated Parquet file), $k (copies)
SELECT * REPLACE (capture_id || '-r' || copy AS capture_id)
FROM read_parquet($src), range($k) AS r(copy)
