-- How many rows one table holds (Store.row_counts(), one query per base table).
-- {table}: the table's name, quoted (quote_ident).
SELECT count(*) FROM {table};
