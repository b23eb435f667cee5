-- Semantic cache insert: ok provider answers of this pass (registered as __sem_cache_in).
-- A key already present keeps its first answer: the same question asked the same way.
INSERT INTO semantic_cache BY NAME
SELECT i.* FROM __sem_cache_in AS i
ANTI JOIN semantic_cache AS c ON c.cache_key = i.cache_key;
