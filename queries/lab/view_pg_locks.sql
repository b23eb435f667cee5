-- The lab's database view tool: each waiting lock request of pg_locks with the sessions that
-- block it (pg_blocking_pids), the waiter's and the blocker's statements.
SELECT COALESCE(json_agg(t), '[]'::json) FROM (
  SELECT w.pid, l.locktype, l.mode, l.relation::regclass::text AS relation,
         pg_blocking_pids(w.pid) AS blocked_by,
         round(EXTRACT(EPOCH FROM now() - w.query_start)::numeric * 1000, 1) AS waiting_ms,
         left(w.query, 1000) AS query,
         (SELECT left(b.query, 1000) FROM pg_stat_activity b
           WHERE b.pid = (pg_blocking_pids(w.pid))[1]) AS blocker_query,
         (SELECT b.state FROM pg_stat_activity b
           WHERE b.pid = (pg_blocking_pids(w.pid))[1]) AS blocker_state
  FROM pg_locks l JOIN pg_stat_activity w ON w.pid = l.pid
  WHERE NOT l.granted
  ORDER BY w.query_start LIMIT 100
) t;
