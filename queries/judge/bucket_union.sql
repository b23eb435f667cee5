-- j_check / j_bucket: every registered bucket's check rows (bk_<bucket>_check) and status
-- (bk_<bucket>, queries/buckets/<bucket>.sql), in BUCKETS order, from the list
-- judge/set_list.sql put in j_list_bucket: a new bucket needs no edit here. Columns are taken
-- by name, so a bucket view may carry more.
CREATE OR REPLACE TEMP TABLE j_check AS
SELECT run_id, case_id, bucket, check_id, kind, required, soft, weight, ord, passed, reason,
       evidence_file, evidence_path, evidence_line, evidence_excerpt
FROM query_table(list_transform(getvariable('j_list_bucket'), lambda b: 'bk_' || b || '_check'),
                 true);

CREATE OR REPLACE TEMP TABLE j_bucket AS
SELECT run_id, case_id, bucket, status, reason, frac, frac_hard, frac_supporting
FROM query_table(list_transform(getvariable('j_list_bucket'), lambda b: 'bk_' || b), true);
