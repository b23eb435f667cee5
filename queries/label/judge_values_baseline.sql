-- What a recorded judge version said (docs/calibration.md, "The judge gate"): temp table
-- label_judge from label_baseline rows of judge version $judge_version, for the case runs with
-- a label (label_effective). Decides the baseline side of `rcaeval label gate`: the values
-- `rcaeval label baseline` recorded, never the store's current judgments.
CREATE OR REPLACE TEMP TABLE label_judge AS
SELECT b.level, b.item, b.run_id, b.case_id, b.value, b.judge_version, b.rules_hash
FROM label_baseline b
WHERE b.judge_version = $judge_version
  AND EXISTS (SELECT 1 FROM label_effective e
              WHERE e.run_id = b.run_id AND e.case_id = b.case_id);
