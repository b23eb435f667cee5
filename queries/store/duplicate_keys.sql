-- The key values of table {table} that more than one row holds (its key, {key}, is listed in
-- queries/store/unenforced_keys.sql because DuckDB does not enforce it), at most 5, with how
-- many rows hold each; no row when the key is unique. Decides whether a write or a store is
-- sound: Store.write_frame and Store.import_parquet roll back when this returns a row, and
-- `rcaeval doctor` fails the store.
SELECT concat_ws(' / ', {key}) AS key_value, count(*) AS n_rows
FROM {table}
GROUP BY {key}
HAVING count(*) > 1
ORDER BY key_value
LIMIT 5;
