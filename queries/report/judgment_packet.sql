-- The stored judgment.json packet of one (run, case) (`rcaeval explain`); no row when the
-- case has no judgment.
SELECT judgment_json
FROM eval_judgment
WHERE run_id = $run_id AND case_id = $case_id;
