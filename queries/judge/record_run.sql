-- eval_runs row for a run judged from an audit dir (source 'judge', completed) unless the
-- store already has one (a runner's own row is left alone).
INSERT INTO eval_runs (run_id, source, audit_root, status, judge_version)
SELECT $run_id, 'judge', $audit_root, 'completed', $judge_version
WHERE NOT EXISTS (SELECT 1 FROM eval_runs WHERE run_id = $run_id);
