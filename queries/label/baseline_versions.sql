-- Judge versions with a recorded baseline (docs/calibration.md, "The judge gate"): each
-- version in label_baseline with its case runs and when it was last recorded. Decides what
-- `rcaeval label gate` names when the asked-for version has none.
SELECT judge_version, count(DISTINCT run_id || chr(0) || case_id) AS case_runs,
       max(recorded_at) AS recorded_at
FROM label_baseline
GROUP BY judge_version
ORDER BY judge_version;
