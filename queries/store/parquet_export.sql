-- Write one table to a Parquet file (Store.export_parquet), rows sorted by every column (in
-- declaration order: ORDER BY ALL) so the file is reproducible.
-- {table}: the table, quoted.
-- Param ?: the file to write (a temporary name, renamed into place afterwards).
COPY (SELECT * FROM {table} ORDER BY ALL) TO ? (FORMAT parquet);
