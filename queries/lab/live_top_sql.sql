-- The lab's live tools: the top statements of pg_stat_statements by total time, as JSON.
SELECT COALESCE(json_agg(t), '[]'::json) FROM (
  SELECT queryid::text AS queryid, left(query, 1000) AS query, calls,
         round(mean_exec_time::numeric, 2) AS mean_ms, round(max_exec_time::numeric, 2) AS max_ms,
         round(total_exec_time::numeric, 1) AS total_ms, rows
  FROM pg_stat_statements
  WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  ORDER BY total_exec_time DESC LIMIT 50
) t;
