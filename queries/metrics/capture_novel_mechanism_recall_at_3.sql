-- metric: capture_novel_mechanism_recall_at_3
-- kind: rate
-- reads: release_capture
-- numerator: novel captures whose expected family (the mechanism the reviewer established)
--   is among the first three ranked hypotheses of the final response (case-insensitive)
-- denominator: captures of case type 'novel' that have an expected family
-- rows: valid captures in the release window; case type and expected family from the labels,
--   else the latest review; novel captures without an expected family are not counted
SELECT count(*) FILTER (WHERE list_contains(coalesce(hyp_families, [])[1:3], expected_family))
         AS numerator,
       count(*) AS denominator
FROM release_capture
WHERE case_type = 'novel' AND expected_family IS NOT NULL
