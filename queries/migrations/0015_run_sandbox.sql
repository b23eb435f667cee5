-- Migration 0015: the sandbox a run's agents got. eval_runs.sandbox is the effective mode
-- `rcaeval run` resolved (rcaeval.runner._sandbox.Sandbox.describe: 'bwrap',
-- 'bwrap (no network)' or 'none' - `--sandbox auto` without bubblewrap is 'none'), shown in
-- report.txt, the results JSON, JUnit and the run page. Runs stored before this migration,
-- and runs judged from an audit dir, have NULL (each case's manifest.json still says).
ALTER TABLE eval_runs ADD COLUMN IF NOT EXISTS sandbox VARCHAR;
