-- Record the judge's values of labelled case runs (docs/calibration.md, "The judge gate"):
-- every label_judge row into label_baseline under its judge version, replacing what that
-- version recorded before for the same item, with the time $recorded_at. Decides what
-- `rcaeval label gate --baseline-judge VERSION` compares against.
INSERT OR REPLACE INTO label_baseline
SELECT judge_version, run_id, case_id, level, item, value, rules_hash, $recorded_at::TIMESTAMPTZ
FROM label_judge
WHERE judge_version IS NOT NULL;
