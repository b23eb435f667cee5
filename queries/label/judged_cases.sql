-- Judged case runs of the runs in $run_ids (docs/calibration.md, "Import"): run_id, case_id
-- and judge version. Decides which (run_id, case_id) a sheet row may label.
SELECT run_id, case_id, judge_version
FROM eval_judgment
WHERE list_contains($run_ids, run_id)
ORDER BY run_id, case_id;
