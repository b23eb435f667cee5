-- metric: offline_open_world_unsupported_high_confidence
-- kind: count
-- reads: offline_case, offline_link, offline_evidence
-- numerator: open-world (novel) cases whose root cause names a family at confidence 'high'
--   without support: the live evidence its statement cites (usable, current_run; artifacts
--   declared only for other families do not count) neither spans 2 independent source
--   groups nor holds a dispositive signature declared for that family -- the harness's
--   gate 1, recomputed from the response (as capture_groundless_high_confidence)
-- rows: decides the zero-tolerance gate of `offline score --max-open-world-high-confidence`
--   (default 0): every valid fixture of case type 'novel' (sample size: those cases, of which
--   only high-confidence named families can count); none: NULL, not measured
WITH novel AS (
  SELECT case_id, lower(root_family) AS family, root_confidence
  FROM offline_case WHERE case_type = 'novel'
),
cited AS (
  SELECT n.case_id,
         count(DISTINCT e.source_group) FILTER (
           WHERE e.usable AND e.origin = 'current_run'
             AND (len(e.supports) = 0
                  OR list_contains(list_transform(e.supports, lambda s: lower(s)), n.family)))
           AS groups,
         coalesce(bool_or(e.usable AND e.origin = 'current_run' AND e.dispositive
                          AND list_contains(list_transform(e.supports, lambda s: lower(s)),
                                            n.family)), false) AS dispositive
  FROM novel n
  JOIN offline_link l ON l.case_id = n.case_id AND l.claim_idx = 0
  JOIN offline_evidence e ON e.case_id = n.case_id AND e.evidence_id = l.evidence_id
  WHERE n.family IS NOT NULL AND n.root_confidence = 'high'
  GROUP BY n.case_id
)
SELECT count(*) FILTER (WHERE n.family IS NOT NULL AND n.root_confidence = 'high'
                          AND NOT (coalesce(c.groups, 0) >= 2 OR coalesce(c.dispositive, false)))
         AS numerator,
       count(*) AS denominator
FROM novel n LEFT JOIN cited c USING (case_id)
