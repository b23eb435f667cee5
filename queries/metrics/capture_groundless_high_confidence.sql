-- metric: capture_groundless_high_confidence
-- kind: count
-- reads: release_capture, release_evidence
-- numerator: captures whose final response names a root-cause family with confidence 'high'
--   although the live evidence its root cause cites neither spans two independent source
--   groups nor includes a dispositive signature declared for that family; cited artifacts
--   that declare only other families do not count (recomputed from the response itself, not
--   taken from the captured harness result)
-- denominator: captures whose final response names a family with confidence 'high' (the
--   sample size)
-- rows: valid captures in the release window, every case type; no high-confidence named
--   family: not measured (sample size 0), the gate fails it
WITH high AS (
  SELECT capture_id, rc_family, rc_evidence_ids FROM release_capture
  WHERE rc_family IS NOT NULL AND rc_confidence = 'high'
),
support AS (
  -- the evidence its root cause cites, of each high capture: release_evidence carries the
  -- capture's root cause, so the filter on it keeps only these captures' evidence unnested
  SELECT e.capture_id,
         count(DISTINCT e.source_group) FILTER (
           WHERE e.live AND (len(e.supports) = 0 OR list_contains(e.supports, e.rc_family)))
           AS groups,
         coalesce(bool_or(e.live AND e.dispositive AND list_contains(e.supports, e.rc_family)),
                  false) AS dispositive
  FROM release_evidence e
  WHERE e.rc_family IS NOT NULL AND e.rc_confidence = 'high'
    AND list_contains(e.rc_evidence_ids, e.evidence_id)
  GROUP BY e.capture_id
)
SELECT count(*) FILTER (WHERE NOT (coalesce(s.groups, 0) >= 2 OR coalesce(s.dispositive, false)))
         AS numerator,
       count(*) AS denominator
FROM high h LEFT JOIN support s USING (capture_id)
