-- The lab's database view tool: pg_stat_statements of the lab database by total time.
SELECT COALESCE(json_agg(t), '[]'::json) FROM (
  SELECT queryid::text AS queryid, left(query, 1000) AS query, calls,
         round(mean_exec_time::numeric, 2) AS mean_ms, round(max_exec_time::numeric, 2) AS max_ms,
         round(total_exec_time::numeric, 1) AS total_ms, rows,
         shared_blks_hit, shared_blks_read
  FROM pg_stat_statements
  WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
  ORDER BY total_exec_time DESC LIMIT 100
) t;
