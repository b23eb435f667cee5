-- metric: capture_confidence_source_groups_overclaimed
-- kind: rate
-- reads: release_confidence_breakdown, release_evidence
-- numerator: captures whose ranker declares an independent source group
--   (confidence_diagnostics.independent_source_groups, compared lower-cased) that no live
--   evidence its root cause cites comes from -- counting, as the harness does, live artifacts
--   (usable, origin current_run) that support the named family or declare no family, by
--   source_group else source: the ranker credited independence the evidence does not show
-- denominator: captures whose response names a root-cause family and carries
--   confidence_diagnostics declaring at least one independent source group
-- rows: valid captures in the release window; a capture declaring no group is not counted;
--   none: NULL, not measured (sample size 0)
WITH declared AS (
  SELECT capture_id, declared_groups FROM release_confidence_breakdown
  WHERE rc_family IS NOT NULL AND len(declared_groups) > 0
),
live AS (   -- the source groups of the live evidence each capture's root cause cites
  SELECT e.capture_id, list(DISTINCT e.source_group) AS groups
  FROM release_evidence e
  WHERE e.rc_family IS NOT NULL AND list_contains(e.rc_evidence_ids, e.evidence_id)
    AND e.live AND (len(e.supports) = 0 OR list_contains(e.supports, e.rc_family))
    AND e.source_group IS NOT NULL
  GROUP BY e.capture_id
)
SELECT count(*) FILTER (WHERE NOT list_has_all(coalesce(l.groups, []), d.declared_groups))
         AS numerator,
       count(*) AS denominator
FROM declared d LEFT JOIN live l USING (capture_id)
