-- The bounds of agent-reported usage (rcaeval._usage MAX_TOKENS / MAX_COST_USD) as the
-- variable j_usage_bounds {tokens, cost}, for judge/trajectory.sql. Decides nothing itself.
-- Params: $max_tokens, $max_cost.
SET VARIABLE j_usage_bounds = {'tokens': $max_tokens::DOUBLE, 'cost': $max_cost::DOUBLE};
