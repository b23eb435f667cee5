-- The judging pass's verdict frame (JudgeFrames.judgments): one row per judged (run, case).
SELECT * FROM j_verdict ORDER BY run_id, case_id;
