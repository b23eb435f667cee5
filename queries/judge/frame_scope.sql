-- The scope frame (JudgeFrames.scope): what was judged, with its case_meta and bundle status.
SELECT * FROM j_scope ORDER BY run_id, case_id;
