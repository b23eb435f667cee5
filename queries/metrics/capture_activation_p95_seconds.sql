-- metric: capture_activation_p95_seconds
-- kind: value
-- reads: release_activation
-- rows: knowledge activations with a recorded latency, from valid captures in the release
--   window that are not outage tests (a deliberate outage measures resilience, not latency);
--   value = the 95th percentile latency in seconds, nearest-rank (an observed latency, never
--   interpolated); denominator = the number of latencies; NULL when there are none. Only
--   finite latencies count: DuckDB sorts NaN above +Infinity, so a NaN would be the p95
--   (validation already rejects a non-finite latency: queries/release/validate_captures.sql)
SELECT quantile_disc(latency_seconds, 0.95) AS value,
       count(latency_seconds) AS denominator
FROM release_activation
WHERE outage_test IS NULL AND isfinite(latency_seconds)
