-- metric: capture_probe_by_template
-- kind: breakdown
-- reads: release_trace_observation
-- key: probe_template_id
-- rates: support_rate = supported / executions, refutation_rate = refuted / executions,
--   contribution_rate = contributed / executions
-- rows: decides how often each knowledge probe template ran, and what its observations did,
--   from APPROVED trace-v3 case snapshots only (trace.status = 'approved'; shadow, pending
--   and rejected snapshots are not counted) of valid captures in the release window; one
--   row per probe_template_id (observations without a template are not probes of one).
--   executions: observations of the template; captures: distinct captures running it;
--   supported: observations with at least one supporting source group; refuted: with at
--   least one contradicting source group (an observation can do both); contributed: it
--   supports the final diagnosis -- the root cause names a family, the observation's
--   hypothesis is that family, it has a supporting source group and the root cause cites its
--   evidence_id; before / during / after / unknown: observations by incident-time relation
--   (a later corroborating observation is counted, its timing kept auditable). Ordered by
--   executions (most first), then template id.
SELECT probe_template_id,
       count(*)                                                    AS executions,
       count(DISTINCT capture_id)                                  AS captures,
       count(*) FILTER (WHERE len(supporting) > 0)                 AS supported,
       count(*) FILTER (WHERE len(contradicting) > 0)              AS refuted,
       count(*) FILTER (WHERE rc_family IS NOT NULL AND hypothesis = rc_family
                          AND len(supporting) > 0 AND evidence_id IS NOT NULL
                          AND list_contains(rc_evidence_ids, evidence_id)) AS contributed,
       count(*) FILTER (WHERE incident_time_relation = 'before')   AS before,
       count(*) FILTER (WHERE incident_time_relation = 'during')   AS during,
       count(*) FILTER (WHERE incident_time_relation = 'after')    AS after,
       count(*) FILTER (WHERE incident_time_relation = 'unknown')  AS unknown
FROM release_trace_observation
WHERE snapshot_status = 'approved' AND probe_template_id IS NOT NULL
GROUP BY probe_template_id
ORDER BY executions DESC, probe_template_id
