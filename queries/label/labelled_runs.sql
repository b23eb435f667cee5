-- Runs with labels that count (docs/calibration.md, "The judge gate"): the distinct run ids
-- of temp table label_effective. Decides which runs the gate judges again.
SELECT DISTINCT run_id FROM label_effective ORDER BY run_id;
