-- apply_action's catalog check: the lab database's tables and their columns (create_index
-- and analyze_table accept only these).
SELECT COALESCE(json_object_agg(table_name, cols), '{}'::json) FROM (
  SELECT table_name, json_agg(column_name::text ORDER BY ordinal_position) AS cols
  FROM information_schema.columns
  WHERE table_schema = 'public'
  GROUP BY table_name
) t;
