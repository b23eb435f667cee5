-- Base tables keyed by (run_id, case_id) whose rows a re-run case must lose first:
-- everything derived from a case run except its eval_case_runs row. Parameter $all = true
-- lists every table with a run_id column instead (used to drop a whole run: rcaeval demo).
SELECT c.table_name
FROM duckdb_columns() AS c
JOIN duckdb_tables() AS t
  ON t.database_name = c.database_name AND t.schema_name = c.schema_name
 AND t.table_name = c.table_name
WHERE c.database_name = current_database() AND c.schema_name = 'main' AND NOT t.temporary
  AND c.column_name IN ('run_id', 'case_id')
GROUP BY c.table_name
HAVING ($all AND bool_or(c.column_name = 'run_id'))
    OR (count(DISTINCT c.column_name) = 2 AND c.table_name NOT IN ('eval_runs', 'eval_case_runs'))
ORDER BY c.table_name;
