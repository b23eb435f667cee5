-- The fact frame (JudgeFrames.facts): every fact of every judged (run, case), by name.
SELECT * FROM j_fact ORDER BY run_id, case_id, fact;
