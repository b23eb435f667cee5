-- Keep the deterministic judge's values aside (docs/calibration.md, "The semantic shadow"):
-- temp table label_judge_deterministic, a copy of label_judge, which judge_values_blended.sql
-- reads. Decides nothing itself.
CREATE OR REPLACE TEMP TABLE label_judge_deterministic AS SELECT * FROM label_judge;
