-- eval_case_runs rows for cases judged straight from an audit dir (rcaeval judge), with
-- the token usage and cost their manifest.json reports. A runner's own rows are left alone.
-- Input: __rcaeval_judged (run_id, case_id): every pair of the pass, across all chunks.
-- Params: $max_tokens, $max_cost (rcaeval._usage): the usage numbers are the agent's, so
-- untrusted. A value that is not a finite, non-negative number within its bound (token counts
-- also whole) is stored as NULL and named in the row's error column instead of failing the cast.
WITH usage AS (
    SELECT j.run_id, j.case_id, substr(j.path, 9) AS key, j.type, j.value_num, j.value_text,
           CASE WHEN j.type = 'null' THEN NULL
                WHEN j.type <> 'number' OR j.value_num IS NULL THEN 'is not a number'
                WHEN NOT isfinite(j.value_num) THEN 'is not finite'
                WHEN j.value_num < 0 THEN 'is negative'
                WHEN j.value_num > CASE WHEN j.path = '$.usage.cost_usd' THEN $max_cost
                                        ELSE $max_tokens END THEN 'is out of range'
                WHEN j.path <> '$.usage.cost_usd' AND j.value_num <> floor(j.value_num)
                    THEN 'is not a whole number'
           END AS problem
    FROM raw_json AS j
    JOIN __rcaeval_judged AS p ON p.run_id = j.run_id AND p.case_id = j.case_id
    WHERE j.file = 'manifest.json'
      AND j.path IN ('$.usage.input_tokens', '$.usage.output_tokens',
                     '$.usage.cache_read_tokens', '$.usage.cache_write_tokens',
                     '$.usage.cost_usd')
),
per_case AS (
    SELECT run_id, case_id,
           max(value_num) FILTER (WHERE key = 'input_tokens' AND problem IS NULL) AS input_tokens,
           max(value_num) FILTER (WHERE key = 'output_tokens' AND problem IS NULL) AS output_tokens,
           max(value_num) FILTER (WHERE key = 'cache_read_tokens' AND problem IS NULL)
               AS cache_read_tokens,
           max(value_num) FILTER (WHERE key = 'cache_write_tokens' AND problem IS NULL)
               AS cache_write_tokens,
           max(value_num) FILTER (WHERE key = 'cost_usd' AND problem IS NULL) AS cost_usd,
           string_agg(key || ' ' || problem || ' (' || left(coalesce(value_text, type), 40)
                      || ')', '; ' ORDER BY key) FILTER (WHERE problem IS NOT NULL) AS problems
    FROM usage
    GROUP BY run_id, case_id
)
INSERT INTO eval_case_runs (run_id, case_id, status, attempts, workspace_id, audit_path,
                            input_tokens, output_tokens, cache_read_tokens,
                            cache_write_tokens, cost_usd, error)
SELECT k.run_id, k.case_id, 'judged', 1, k.workspace_id, k.case_dir,
       u.input_tokens::BIGINT, u.output_tokens::BIGINT, u.cache_read_tokens::BIGINT,
       u.cache_write_tokens::BIGINT, u.cost_usd,
       CASE WHEN u.problems IS NOT NULL
            THEN 'usage recorded as NULL: ' || u.problems || ' in manifest.json' END
FROM raw_bundle AS k
JOIN __rcaeval_judged AS p ON p.run_id = k.run_id AND p.case_id = k.case_id
LEFT JOIN per_case AS u ON u.run_id = k.run_id AND u.case_id = k.case_id
WHERE NOT EXISTS (SELECT 1 FROM eval_case_runs AS c
                  WHERE c.run_id = k.run_id AND c.case_id = k.case_id)
