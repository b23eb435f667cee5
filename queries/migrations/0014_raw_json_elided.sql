-- Elided bulk containers in raw_json (docs/extract.md "raw_json"): the values of a few bulk
-- containers that a typed raw table already holds (each `$.series[i].points` list of
-- evidences/metrics.json: raw_metric_point; the `$.entries` list of evidences/logs.json:
-- raw_log_line) get no raw_json rows of their own. The container keeps its row, and
-- `elided_json` holds its compact JSON text, from which the judge rebuilds those rows, exactly
-- as they would have been written, for the files a rule's evidence method reads
-- (queries/judge/elided_json.sql). NULL on every other row, and on every row written before
-- this migration (those stores hold every value as a row, and judge the same).
ALTER TABLE raw_json ADD COLUMN IF NOT EXISTS elided_json VARCHAR;
