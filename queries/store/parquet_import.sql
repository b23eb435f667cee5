-- Store.import_parquet: append one Parquet file's rows to its table by column name (columns
-- the file lacks, allowed for an older export, get the table's default); inside the import's
-- one transaction, so a failing file leaves the store unchanged.
-- {table}: the table, quoted. {columns}: the file's columns, quoted, comma-separated.
-- Param ?: the file.
INSERT INTO {table} ({columns}) SELECT {columns} FROM read_parquet(?);
