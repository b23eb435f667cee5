-- Shared inputs of the fact views, the judging scope's (the chunk inputs j_raw_* hold only
-- j_scope's rows, judge/chunk_input.sql, so no join with j_scope here): the file
-- inventory (with each file's base name; a file counts as parsed when its status is ok or
-- not_utf8, docs/extract.md), JSON values, telemetry lines (with an `ok` flag:
-- a milestone logged with status error/failed does not count) and the output sentences.
CREATE OR REPLACE TEMP VIEW fx_file AS
SELECT f.run_id, f.case_id, f.file, f.kind, f.size, f.status, f.detail,
       regexp_extract(f.file, '[^/]*$') AS base
FROM j_raw_file AS f;

CREATE OR REPLACE TEMP VIEW fx_json AS
SELECT * FROM j_raw_json;

CREATE OR REPLACE TEMP VIEW fx_tele AS
SELECT t.*,
       coalesce(lower(t.status), 'ok') NOT IN ('error', 'failed', 'fail', 'failure') AS ok
FROM j_raw_telemetry AS t;

-- The name the telemetry log has in raw_file for each run (for evidence references).
CREATE OR REPLACE TEMP VIEW fx_tele_file AS
SELECT k.run_id, k.case_id,
       coalesce(min(f.file), '.opencode/telemetry.log') AS file
FROM j_scope AS k
LEFT JOIN fx_file AS f
       ON f.run_id = k.run_id AND f.case_id = k.case_id AND f.base = 'telemetry.log'
GROUP BY k.run_id, k.case_id;

-- An evidence file named plainly (`x.json`) lives under evidences/.
CREATE OR REPLACE TEMP MACRO base_name_eq(f, b) AS f = 'evidences/' || b OR f = b;
