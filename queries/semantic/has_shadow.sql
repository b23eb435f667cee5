-- Whether the store has the semantic shadow's tables (migration 0003): one row, `present`
-- true when `eval_semantic` exists as a permanent table. Stores created before the shadow
-- existed answer false, and readers then report "no shadow" rather than failing.
SELECT count(*) > 0 AS present
FROM duckdb_tables()
WHERE table_name = 'eval_semantic' AND NOT temporary;
