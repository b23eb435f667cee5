-- The judging pass's trajectory frame (JudgeFrames.trajectory): one row per judged (run,
-- case), as judge/trajectory.sql decided it.
SELECT * FROM j_trajectory ORDER BY run_id, case_id;
