-- Store.import_parquet(mode="replace"): empty a table that has a file, before any file is
-- loaded, inside the import's transaction.
-- {table}: the table, quoted.
DELETE FROM {table};
