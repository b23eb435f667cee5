-- eval_case_runs rows for cases judged straight from an audit dir (rcaeval judge), with
-- the token usage and cost their manifest.json reports. A runner's own rows are left alone.
-- Input: __rcaeval_judged (run_id, case_id): every pair of the pass, across all chunks.
INSERT INTO eval_case_runs (run_id, case_id, status, attempts, workspace_id, audit_path,
                            input_tokens, output_tokens, cache_read_tokens,
                            cache_write_tokens, cost_usd)
SELECT k.run_id, k.case_id, 'judged', 1, k.workspace_id, k.case_dir,
       max(j.value_num) FILTER (WHERE j.path = '$.usage.input_tokens')::BIGINT,
       max(j.value_num) FILTER (WHERE j.path = '$.usage.output_tokens')::BIGINT,
       max(j.value_num) FILTER (WHERE j.path = '$.usage.cache_read_tokens')::BIGINT,
       max(j.value_num) FILTER (WHERE j.path = '$.usage.cache_write_tokens')::BIGINT,
       max(j.value_num) FILTER (WHERE j.path = '$.usage.cost_usd')
FROM raw_bundle AS k
JOIN __rcaeval_judged AS p ON p.run_id = k.run_id AND p.case_id = k.case_id
LEFT JOIN raw_json AS j ON j.run_id = k.run_id AND j.case_id = k.case_id
                       AND j.file = 'manifest.json' AND starts_with(j.path, '$.usage.')
WHERE NOT EXISTS (SELECT 1 FROM eval_case_runs AS c
                  WHERE c.run_id = k.run_id AND c.case_id = k.case_id)
GROUP BY k.run_id, k.case_id, k.workspace_id, k.case_dir
