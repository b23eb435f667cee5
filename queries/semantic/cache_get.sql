-- Semantic cache lookup (docs/semantic.md): the stored provider answers (samples) for the
-- given content-addressed keys. Parameter: $keys (list of cache keys).
SELECT cache_key, answer_json
FROM semantic_cache
WHERE list_contains($keys, cache_key);
