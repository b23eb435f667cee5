-- Append the rebuilt values of elided JSON containers (judge/elided_json.sql picks them;
-- rcaeval.extract.elided_table builds the rows, registered as _rcaeval_elided_rows) to the
-- chunk's j_raw_json. Decides nothing: the rows are those extraction would have written.
INSERT INTO j_raw_json BY NAME
SELECT * EXCLUDE (elided_json) FROM _rcaeval_elided_rows;
