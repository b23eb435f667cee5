-- One planned run of a repeat group (written for all K runs before the first starts, so a
-- resume knows K).
INSERT INTO eval_repeat_runs (group_id, run_id, repeat_index, repeats)
VALUES ($group_id, $run_id, $repeat_index, $repeats)
