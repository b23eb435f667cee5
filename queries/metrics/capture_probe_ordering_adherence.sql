-- metric: capture_probe_ordering_adherence
-- kind: rate
-- reads: release_trace_observation
-- numerator: investigation steps whose probe ranked first, by the ordering rule, among the
--   probes still to run at that step: no later observation of the same capture has a
--   strictly greater priority. The priority of a probe at step i is, lexicographically,
--   (1) unobserved collector: its collector is not among those of steps before i;
--   (2) independent plane: its telemetry plane is not among those of steps before i;
--   (3) unresolved-hypothesis coverage: it tests a hypothesis that no step before i
--       supported or contradicted (an observation with a supporting or contradicting
--       source group resolves its hypothesis); a probe testing no hypothesis covers none;
--   (4) plan affinity: it executes a step of the investigation plan (plan_step not null).
--   Collectors and planes compare case-insensitively; ties pass (equal priority adheres).
-- denominator: steps that had an alternative: every observation but the last of each
--   trace-v3 snapshot (any status) with at least two observations, ordered by `order`
-- rows: valid captures in the release window with a trace; a snapshot of one observation
--   has no choice to make and is not counted; none: NULL, not measured (sample size 0)
WITH o AS (
  SELECT capture_id, obs_order, collector, plane, hypothesis, plan_step,
         len(supporting) + len(contradicting) > 0 AS resolves
  FROM release_trace_observation
),
state AS (  -- what steps before i had observed, per capture and step i
  SELECT a.capture_id, a.obs_order AS step,
         list(b.collector) FILTER (WHERE b.obs_order < a.obs_order) AS seen_collectors,
         list(b.plane) FILTER (WHERE b.obs_order < a.obs_order) AS seen_planes,
         list(b.hypothesis) FILTER (WHERE b.obs_order < a.obs_order AND b.resolves
                                      AND b.hypothesis IS NOT NULL) AS resolved,
         max(b.obs_order) AS last_step
  FROM o a JOIN o b ON b.capture_id = a.capture_id
  GROUP BY a.capture_id, a.obs_order
),
priority AS (  -- the priority, at step i, of every probe still to run (order >= i)
  SELECT s.capture_id, s.step, c.obs_order,
         8 * CAST(NOT list_contains(coalesce(s.seen_collectors, []), c.collector) AS INTEGER)
         + 4 * CAST(NOT list_contains(coalesce(s.seen_planes, []), c.plane) AS INTEGER)
         + 2 * CAST(c.hypothesis IS NOT NULL
                    AND NOT list_contains(coalesce(s.resolved, []), c.hypothesis) AS INTEGER)
         + CAST(c.plan_step IS NOT NULL AS INTEGER) AS p
  FROM state s JOIN o c ON c.capture_id = s.capture_id AND c.obs_order >= s.step
  WHERE s.step < s.last_step
),
steps AS (
  SELECT capture_id, step,
         max(p) FILTER (WHERE obs_order = step) >= max(p) AS adheres
  FROM priority
  GROUP BY capture_id, step
)
SELECT count(*) FILTER (WHERE adheres) AS numerator, count(*) AS denominator
FROM steps
