-- Delete the raw rows of the batch's case runs from one raw table ({table}) before their new
-- rows go in (re-extraction is idempotent). Input: _rcaeval_extract_keys (run_id, case_id).
-- Params: $lo, $hi, the bundle_seq range of the old rows (queries/extract/stale_keys.sql);
-- NULL means unknown and every row is looked at. Rows without a bundle_seq always are.
DELETE FROM {table} AS t
USING _rcaeval_extract_keys AS k
WHERE t.run_id = k.run_id AND t.case_id = k.case_id
  AND ($lo IS NULL OR t.bundle_seq BETWEEN $lo AND $hi OR t.bundle_seq IS NULL);
