-- Rows read from each capture input file, for the provenance's list of inputs.
-- reads: capture_input (input_columns.sql)
-- writes: rows (src, n)
SELECT src, count(*) AS n FROM capture_input GROUP BY src;
