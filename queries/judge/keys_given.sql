-- The judged keys the caller named (registered as the Arrow table __j_keys_in), once each.
CREATE OR REPLACE TEMP TABLE j_keys AS
SELECT DISTINCT run_id, case_id FROM __j_keys_in;
