-- Write one table to a Parquet file (Store.export_parquet), rows sorted by every column so
-- the file is reproducible.
-- {table}: the table, quoted. {order}: all its columns, quoted, in declaration order.
-- Param ?: the file to write (a temporary name, renamed into place afterwards).
COPY (SELECT * FROM {table} ORDER BY {order}) TO ? (FORMAT parquet);
