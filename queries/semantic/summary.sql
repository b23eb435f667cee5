-- The semantic shadow of one run ($run_id) in one row (docs/semantic.md), for reports: how
-- many case runs have a shadow, per status, second passes, cache hits, and the judge's usage
-- (requests, tokens, cost behind the recorded verdicts; cost_cases = case runs whose cost is
-- known). Providers/models are listed distinct and sorted. No shadow: n = 0.
SELECT count(*) AS n,
       count(*) FILTER (WHERE status = 'ok') AS ok,
       count(*) FILTER (WHERE status = 'missing_provider') AS missing_provider,
       count(*) FILTER (WHERE status = 'provider_failure') AS provider_failure,
       count(*) FILTER (WHERE status = 'timeout') AS timeout,
       count(*) FILTER (WHERE status = 'unsupported_provider') AS unsupported_provider,
       count(*) FILTER (WHERE second_pass) AS second_pass,
       count(*) FILTER (WHERE cache_hit) AS cache_hits,
       sum(requests) AS requests,
       sum(input_tokens) AS input_tokens,
       sum(output_tokens) AS output_tokens,
       sum(cost_usd) AS cost_usd,
       count(cost_usd) AS cost_cases,
       coalesce(list_sort(list_distinct(list(provider))), []) AS providers,
       coalesce(list_sort(list_distinct(list(model) FILTER (WHERE model IS NOT NULL))), [])
           AS models,
       coalesce(list_sort(list_distinct(list(prompt_version))), []) AS prompts,
       coalesce(list_sort(list_distinct(list(samples))), []) AS samples
FROM eval_semantic
WHERE run_id = $run_id;
