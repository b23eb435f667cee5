-- Per-capture outcomes of the paired gate rates: decides, for `release compare`, which
-- captures each rate counts and whether each one succeeded, so two measurements of the same
-- incidents can be compared pair by pair (McNemar).
-- reads: release_capture (capture.sql)
-- writes: rows (pair_key, captured_at, capture_id, metric, success) -- one per capture in a
--   rate's denominator; pair_key is the incident id (the capture id when there is none): the
--   same incident analysed by the active and the shadow package.
-- The conditions are those of the metric files (capture_known_top1, capture_false_novel_rate,
-- capture_abstention_rate, capture_novel_mechanism_recall_at_3); `release compare` checks
-- that these rows add up to each artifact's numerator and denominator and refuses the
-- comparison otherwise. `evidence_link_precision` pools evidence ids over captures (a micro
-- average): it has no per-capture outcome and is compared unpaired.
WITH c AS (
  SELECT coalesce(incident_id, capture_id) AS pair_key, captured_at, capture_id, *
         EXCLUDE (capture_id, captured_at)
  FROM release_capture
),
ranked AS (
  SELECT pair_key, captured_at, capture_id, expected_family,
         list_concat(CASE WHEN rc_family IS NULL THEN [] ELSE [rc_family] END,
                     coalesce(hyp_families, [])) AS families
  FROM c
  WHERE case_type = 'novel' AND expected_family IS NOT NULL
)
SELECT pair_key, captured_at, capture_id, 'known_top1' AS metric,
       coalesce(rc_family = expected_family, false) AS success
FROM c WHERE case_type = 'known' AND expected_family IS NOT NULL
UNION ALL
SELECT pair_key, captured_at, capture_id, 'false_novel_rate', novel
FROM c WHERE case_type IN ('known', 'compositional', 'tool_degraded')
UNION ALL
SELECT pair_key, captured_at, capture_id, 'abstention_rate',
       rc_family IS NULL
       OR (outcome IN ('provisional', 'insufficient_evidence') AND rc_confidence <> 'high')
FROM c WHERE expected_outcome = 'abstain'
UNION ALL
SELECT pair_key, captured_at, capture_id, 'novel_mechanism_recall_at_3',
       coalesce(list_contains(
         list_filter(families, lambda f, i: f IS NOT NULL AND f <> ''
                                            AND list_position(families, f) = i)[1:3],
         expected_family), false)
FROM ranked
