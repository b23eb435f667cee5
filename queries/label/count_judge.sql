-- How many judge values were gathered (docs/calibration.md): the rows of temp table
-- label_judge.
SELECT count(*) AS n FROM label_judge;
