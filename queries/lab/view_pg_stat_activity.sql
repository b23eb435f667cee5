-- The lab's database view tool: client sessions of pg_stat_activity, longest-running first.
SELECT COALESCE(json_agg(t), '[]'::json) FROM (
  SELECT pid, usename AS role, application_name, state, wait_event_type, wait_event,
         round(EXTRACT(EPOCH FROM now() - xact_start)::numeric * 1000, 1) AS xact_ms,
         round(EXTRACT(EPOCH FROM now() - query_start)::numeric * 1000, 1) AS query_ms,
         left(query, 1000) AS query
  FROM pg_stat_activity
  WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()
  ORDER BY xact_start NULLS LAST LIMIT 100
) t;
