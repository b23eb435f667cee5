-- One chunk input: the TEMP table j_{chunk_table} holding exactly the rows of raw table
-- {chunk_table} for the (run_id, case_id) keys of j_scope (the manifest runs this once per raw
-- table but raw_bundle, which j_scope already carries). Every fact query reads these, never the
-- raw store itself, so a judging pass costs what its own case runs cost however big the store.
-- Rows are found by `bundle_seq` (migration 0009: extraction numbers case runs in the order it
-- writes them): the chunk's [lo, hi] range (judge/chunk_seq.sql) lets DuckDB skip every row
-- group outside it by its min/max statistics. Rows without a bundle_seq (written before 0009,
-- or by hand) are always looked at; the semi join on the keys then keeps the chunk's own rows.
-- `bundle_seq` is left out, and so is `elided_json` (raw_json only: the text of an elided bulk
-- container, migration 0014): no fact reads it, and judge/elided_json.sql rebuilds the values a
-- method may read.
-- Decides nothing: the rows of a judged key are all there, as in {chunk_table}.
CREATE OR REPLACE TEMP TABLE j_{chunk_table} AS
SELECT COLUMNS(lambda c: c NOT IN ('bundle_seq', 'elided_json')) FROM {chunk_table} AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;
