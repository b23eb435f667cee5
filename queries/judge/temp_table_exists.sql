-- Whether the TEMP table $name exists on this connection (score_and_verdict alone, as the
-- verdict tests call it, has no j_check / j_fact).
SELECT count(*) FROM duckdb_tables() WHERE table_name = $name AND temporary;
