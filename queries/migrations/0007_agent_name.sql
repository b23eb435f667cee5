-- Migration 0007: named agents. eval_runs.agent_name is the label reports and charts group
-- runs by (`rcaeval run --agent-name`, default derived from the --agent spec by
-- rcaeval.runner.default_agent_name: replay:thorough -> thorough, acp:python -m pkg.agent ->
-- agent). agent_spec stays the exact spec; runs stored before this migration, and runs judged
-- from an audit dir, have no name (NULL; charts fall back to the run id).
ALTER TABLE eval_runs ADD COLUMN IF NOT EXISTS agent_name VARCHAR;
