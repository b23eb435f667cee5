-- Trajectory and efficiency of every judged case run (docs/results.md, "Trajectory and
-- efficiency"): j_trajectory (one row per key of j_scope) and j_trajectory_tool (one row per
-- tool called), and the opt-in budget step of the verdict.
-- Decides:
--   a step is one tool.call or tool.error line of .opencode/telemetry.log, numbered in line
--   order; tool.error lines are failed calls; a call is repeated when an earlier call of the
--   case named the same tool with the same recorded arguments;
--   the evidence step is the first successful call whose recorded `ids` hold the id of a
--   record a passing critical_evidence check cited as its witness (logs.json entry, or the
--   `$.<list>[i]` element of a JSON evidence file whose `id` is that string); NULL when no
--   cited record came back from a recorded call (hand-written evidence, id-less files);
--   seconds are measured on the telemetry clock from the case's first telemetry line;
--   tokens, cost and wall time are manifest.json's usage and duration_s (a value that is not a
--   finite, non-negative number within rcaeval._usage's bounds - whole for tokens - is NULL);
--   budgets (rule_budget): over_budget names each measure above its maximum; a budget whose
--   measure is NULL is `unmeasured` unless another is over. With `enforce`, a `pass` verdict of
--   an over-budget case becomes `fail`, subtype over_budget, precedence step 12, its score
--   capped at the profile's no_gate_ceiling; other verdicts are unchanged.
-- Inputs: j_scope, j_raw_telemetry, j_raw_log_line, j_raw_json, j_check, j_verdict, j_band,
-- rule_budget; the variable j_usage_bounds (judge/usage_bounds.sql).
CREATE OR REPLACE TEMP TABLE j_traj_call AS
SELECT t.run_id, t.case_id, t.line_no, t.ts, t.tool,
       t.event = 'tool.error' AS failed,
       json_extract_string(t.text, '$.channel') AS channel,
       coalesce(json_extract(t.text, '$.args')::VARCHAR, '{}') AS args,
       CASE WHEN json_type(json_extract(t.text, '$.ids')) = 'ARRAY'
            THEN json_extract_string(t.text, '$.ids[*]') END AS ids,
       row_number() OVER (PARTITION BY t.run_id, t.case_id ORDER BY t.line_no) AS step,
       row_number() OVER (PARTITION BY t.run_id, t.case_id, t.tool,
                          coalesce(json_extract(t.text, '$.args')::VARCHAR, '{}')
                          ORDER BY t.line_no) > 1 AS repeated
FROM j_raw_telemetry AS t
SEMI JOIN j_scope AS k ON k.run_id = t.run_id AND k.case_id = t.case_id
WHERE t.event IN ('tool.call', 'tool.error') AND t.tool IS NOT NULL;

CREATE OR REPLACE TEMP TABLE j_trajectory_tool AS
SELECT run_id, case_id, tool,
       min(channel) AS channel,
       count(*)::INTEGER AS calls,
       count(*) FILTER (WHERE failed)::INTEGER AS failed_calls,
       count(*) FILTER (WHERE repeated)::INTEGER AS repeated_calls,
       min(step)::INTEGER AS first_step
FROM j_traj_call
GROUP BY run_id, case_id, tool;

CREATE OR REPLACE TEMP VIEW j_traj_cited AS
SELECT c.run_id, c.case_id, c.check_id, coalesce(l.entry_id, j.value_text) AS record_id
FROM j_check AS c
LEFT JOIN j_raw_log_line AS l
       ON c.evidence_path IS NULL AND l.run_id = c.run_id AND l.case_id = c.case_id
      AND l.file = c.evidence_file AND l.line_no = c.evidence_line
LEFT JOIN j_raw_json AS j
       ON c.evidence_path IS NOT NULL AND j.run_id = c.run_id AND j.case_id = c.case_id
      AND j.file = c.evidence_file AND j.type = 'string'
      AND j.path = regexp_extract(c.evidence_path, '^\$\.[A-Za-z_][A-Za-z0-9_]*\[[0-9]+\]')
                   || '.id'
WHERE c.bucket = 'critical_evidence' AND c.passed
  AND coalesce(l.entry_id, j.value_text) IS NOT NULL;

CREATE OR REPLACE TEMP VIEW j_traj_first AS
SELECT c.run_id, c.case_id, c.step, c.ts, w.check_id, w.record_id
FROM j_traj_call AS c
JOIN j_traj_cited AS w
  ON w.run_id = c.run_id AND w.case_id = c.case_id AND list_contains(c.ids, w.record_id)
WHERE NOT c.failed
QUALIFY row_number() OVER (PARTITION BY c.run_id, c.case_id
                           ORDER BY c.step, w.check_id, w.record_id) = 1;

CREATE OR REPLACE TEMP VIEW j_traj_manifest AS
SELECT j.run_id, j.case_id,
       max(j.value_num) FILTER (WHERE j.path = '$.duration_s') AS wall_seconds,
       max(j.value_num) FILTER (WHERE j.path = '$.usage.input_tokens'
                                  AND j.value_num <= getvariable('j_usage_bounds').tokens
                                  AND j.value_num = floor(j.value_num)) AS input_tokens,
       max(j.value_num) FILTER (WHERE j.path = '$.usage.output_tokens'
                                  AND j.value_num <= getvariable('j_usage_bounds').tokens
                                  AND j.value_num = floor(j.value_num)) AS output_tokens,
       max(j.value_num) FILTER (WHERE j.path = '$.usage.cost_usd'
                                  AND j.value_num <= getvariable('j_usage_bounds').cost) AS cost_usd
FROM j_raw_json AS j
SEMI JOIN j_scope AS k ON k.run_id = j.run_id AND k.case_id = j.case_id
WHERE j.file = 'manifest.json' AND j.type = 'number'
  AND isfinite(j.value_num) AND j.value_num >= 0
  AND j.path IN ('$.duration_s', '$.usage.input_tokens', '$.usage.output_tokens',
                 '$.usage.cost_usd')
GROUP BY j.run_id, j.case_id;

CREATE OR REPLACE TEMP TABLE j_trajectory AS
WITH calls AS (
    SELECT run_id, case_id,
           count(*)::INTEGER AS steps,
           count(*) FILTER (WHERE failed)::INTEGER AS failed_calls,
           count(*) FILTER (WHERE repeated)::INTEGER AS repeated_calls,
           count(DISTINCT tool)::INTEGER AS tools_used,
           count(DISTINCT channel)::INTEGER AS channels_queried
    FROM j_traj_call
    GROUP BY run_id, case_id
),
clock AS (
    SELECT run_id, case_id, min(ts) AS t0, max(ts) AS t1
    FROM j_raw_telemetry
    SEMI JOIN j_scope AS k USING (run_id, case_id)
    GROUP BY run_id, case_id
),
m AS (
    SELECT k.run_id, k.case_id,
           coalesce(c.steps, 0) AS steps, coalesce(c.failed_calls, 0) AS failed_calls,
           coalesce(c.repeated_calls, 0) AS repeated_calls,
           coalesce(c.tools_used, 0) AS tools_used,
           coalesce(c.channels_queried, 0) AS channels_queried,
           epoch(cl.t1) - epoch(cl.t0) AS calls_seconds,
           f.step::INTEGER AS evidence_step,
           epoch(f.ts) - epoch(cl.t0) AS evidence_seconds,
           f.check_id AS evidence_check, f.record_id AS evidence_id,
           mf.wall_seconds,
           mf.input_tokens::BIGINT AS input_tokens, mf.output_tokens::BIGINT AS output_tokens,
           CASE WHEN mf.input_tokens IS NOT NULL OR mf.output_tokens IS NOT NULL
                THEN (coalesce(mf.input_tokens, 0) + coalesce(mf.output_tokens, 0))::BIGINT
           END AS total_tokens,
           mf.cost_usd,
           b.max_steps, b.max_tokens, b.max_seconds,
           coalesce(b.enforce, false) AS budget_enforced,
           b.case_id IS NOT NULL
               AND coalesce(b.max_steps, b.max_tokens, b.max_seconds) IS NOT NULL AS budgeted
    FROM j_scope AS k
    LEFT JOIN calls AS c ON c.run_id = k.run_id AND c.case_id = k.case_id
    LEFT JOIN clock AS cl ON cl.run_id = k.run_id AND cl.case_id = k.case_id
    LEFT JOIN j_traj_first AS f ON f.run_id = k.run_id AND f.case_id = k.case_id
    LEFT JOIN j_traj_manifest AS mf ON mf.run_id = k.run_id AND mf.case_id = k.case_id
    LEFT JOIN rule_budget AS b ON b.case_id = k.case_id AND b.rules_hash = k.rules_hash
),
o AS (
    SELECT m.*,
           list_filter([CASE WHEN steps > max_steps THEN 'steps' END,
                        CASE WHEN total_tokens > max_tokens THEN 'tokens' END,
                        CASE WHEN wall_seconds > max_seconds THEN 'seconds' END],
                       lambda x: x IS NOT NULL) AS over_budget,
           list_filter([CASE WHEN max_tokens IS NOT NULL AND total_tokens IS NULL
                             THEN 'tokens' END,
                        CASE WHEN max_seconds IS NOT NULL AND wall_seconds IS NULL
                             THEN 'seconds' END],
                       lambda x: x IS NOT NULL) AS unmeasured
    FROM m
)
SELECT run_id, case_id, steps, failed_calls, repeated_calls, tools_used, channels_queried,
       calls_seconds, evidence_step, evidence_seconds, evidence_check, evidence_id,
       wall_seconds, input_tokens, output_tokens, total_tokens, cost_usd,
       max_steps, max_tokens, max_seconds, budget_enforced,
       CASE WHEN NOT budgeted THEN 'no_budget'
            WHEN len(over_budget) > 0 THEN 'over_budget'
            WHEN len(unmeasured) > 0 THEN 'unmeasured'
            ELSE 'within_budget' END AS efficiency,
       over_budget,
       CASE WHEN NOT budgeted THEN 'no budget declared'
            ELSE array_to_string(list_filter([
                 CASE WHEN max_steps IS NOT NULL THEN 'steps ' || steps::VARCHAR
                      || CASE WHEN steps > max_steps THEN ' > ' ELSE ' <= ' END
                      || 'max_steps ' || max_steps::VARCHAR END,
                 CASE WHEN max_tokens IS NOT NULL THEN 'tokens '
                      || coalesce(total_tokens::VARCHAR, 'not reported')
                      || CASE WHEN total_tokens IS NULL THEN ', '
                              WHEN total_tokens > max_tokens THEN ' > ' ELSE ' <= ' END
                      || 'max_tokens ' || max_tokens::VARCHAR END,
                 CASE WHEN max_seconds IS NOT NULL THEN 'seconds '
                      || coalesce(round(wall_seconds, 3)::VARCHAR, 'not recorded')
                      || CASE WHEN wall_seconds IS NULL THEN ', '
                              WHEN wall_seconds > max_seconds THEN ' > ' ELSE ' <= ' END
                      || 'max_seconds ' || max_seconds::VARCHAR END],
                 lambda x: x IS NOT NULL), '; ')
                 || CASE WHEN budget_enforced THEN ' (enforced)' ELSE '' END
       END AS efficiency_reason
FROM o;

-- The opt-in step 12: an enforced, over-budget pass becomes a fail.
UPDATE j_verdict AS v
SET verdict = 'fail', subtype = 'over_budget', step = 12,
    score = least(v.score, coalesce(b.no_gate_ceiling, v.score)),
    reason = 'over_budget: ' || t.efficiency_reason
FROM j_trajectory AS t, j_scope AS k
LEFT JOIN j_band AS b ON b.profile = k.scoring_profile
WHERE t.run_id = v.run_id AND t.case_id = v.case_id
  AND k.run_id = v.run_id AND k.case_id = v.case_id
  AND v.verdict = 'pass' AND t.budget_enforced AND t.efficiency = 'over_budget';
