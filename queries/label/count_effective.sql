-- How many labels count (docs/calibration.md): the rows of temp table label_effective.
SELECT count(*) AS n FROM label_effective;
