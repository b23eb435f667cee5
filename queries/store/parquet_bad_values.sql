-- Values of one enumerated column of a Parquet file that its table does not allow
-- (`rcaeval db import` refuses the file: docs/store.md). {column} is a quoted identifier.
-- Params: $1 the Parquet file, $2 the allowed values.
SELECT DISTINCT CAST({column} AS VARCHAR) AS value
FROM read_parquet($1)
WHERE {column} IS NOT NULL AND NOT list_contains($2, CAST({column} AS VARCHAR))
ORDER BY value
LIMIT 5
