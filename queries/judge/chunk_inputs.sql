-- The raw rows of the judged chunk: one TEMP table j_raw_<t> per raw table raw_<t> (minus
-- raw_bundle, which j_scope already carries), holding exactly the rows of the (run_id,
-- case_id) keys in j_scope. Every fact query reads these, never the raw store itself, so a
-- judging pass costs what its own case runs cost however big the store is.
-- Rows are found by `bundle_seq` (migration 0009: extraction numbers case runs in the order it
-- writes them): the chunk's [lo, hi] range lets DuckDB skip every row group outside it by its
-- min/max statistics. Rows without a bundle_seq (written before 0009, or by hand) are always
-- looked at; the semi join on the keys then keeps the chunk's own rows only.
-- Decides nothing: the rows of a judged key are all there, as in raw_<t>.
SET VARIABLE j_seq_lo = (
    SELECT min(b.bundle_seq) FROM raw_bundle AS b
    SEMI JOIN j_scope AS k ON k.run_id = b.run_id AND k.case_id = b.case_id
);
SET VARIABLE j_seq_hi = (
    SELECT max(b.bundle_seq) FROM raw_bundle AS b
    SEMI JOIN j_scope AS k ON k.run_id = b.run_id AND k.case_id = b.case_id
);

CREATE OR REPLACE TEMP TABLE j_raw_file AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_file AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

-- j_raw_json leaves out `elided_json` (the text of an elided bulk container, migration 0014):
-- no fact reads it, and judge/elided_json.sql rebuilds the values a method may read.
CREATE OR REPLACE TEMP TABLE j_raw_json AS
SELECT r.* EXCLUDE (bundle_seq, elided_json) FROM raw_json AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

CREATE OR REPLACE TEMP TABLE j_raw_log_line AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_log_line AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

CREATE OR REPLACE TEMP TABLE j_raw_telemetry AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_telemetry AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

CREATE OR REPLACE TEMP TABLE j_raw_metric_point AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_metric_point AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

CREATE OR REPLACE TEMP TABLE j_raw_query AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_query AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

CREATE OR REPLACE TEMP TABLE j_raw_event AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_event AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

CREATE OR REPLACE TEMP TABLE j_raw_patch_item AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_patch_item AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

CREATE OR REPLACE TEMP TABLE j_raw_patch_ref AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_patch_ref AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

CREATE OR REPLACE TEMP TABLE j_raw_output_sentence AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_output_sentence AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;

CREATE OR REPLACE TEMP TABLE j_raw_evidence_check AS
SELECT r.* EXCLUDE (bundle_seq) FROM raw_evidence_check AS r
SEMI JOIN j_scope AS k ON k.run_id = r.run_id AND k.case_id = r.case_id
WHERE r.bundle_seq BETWEEN getvariable('j_seq_lo') AND getvariable('j_seq_hi')
   OR r.bundle_seq IS NULL;
