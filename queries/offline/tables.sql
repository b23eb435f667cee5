-- Offline tables (docs/offline.md): the flattened rows of one fixture file.
-- Decides nothing; it materialises what rcaeval.offline registered as in_* frames so every
-- offline metric (queries/metrics/offline_*.sql, novel_gate_*.sql) reads plain tables.
--   offline_case        one row per valid fixture: labels + the response's scalar fields
--   offline_hypothesis  ranked hypotheses (rank 1 = best)
--   offline_evidence    evidence artifacts (source_group resolved and case-folded)
--   offline_claim       claim 0 = the root-cause statement (material iff it names a family),
--                       claims 1..n as given
--   offline_link        claim -> cited evidence id
--   offline_plan        investigation-plan steps (read_only: the probe is not disruptive)
--   offline_action      actions (disruptive / guarded as the harness defines them)
--   offline_tool_error  tool errors the response reports
CREATE OR REPLACE TABLE offline_case AS SELECT * FROM in_case;
CREATE OR REPLACE TABLE offline_hypothesis AS SELECT * FROM in_hypothesis;
CREATE OR REPLACE TABLE offline_evidence AS SELECT * FROM in_evidence;
CREATE OR REPLACE TABLE offline_claim AS SELECT * FROM in_claim;
CREATE OR REPLACE TABLE offline_link AS SELECT * FROM in_link;
CREATE OR REPLACE TABLE offline_plan AS SELECT * FROM in_plan;
CREATE OR REPLACE TABLE offline_action AS SELECT * FROM in_action;
CREATE OR REPLACE TABLE offline_tool_error AS SELECT * FROM in_tool_error;
