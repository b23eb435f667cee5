-- metric: capture_novel_mechanism_recall_at_3
-- kind: rate
-- reads: release_capture
-- numerator: novel captures whose expected family (the mechanism the reviewer established)
--   is among the first three ranked families of the final response: the root cause's family
--   (when named) first, then the hypotheses in order, each family once (case-insensitive;
--   the list offline Top-3 ranks), so a repeated hypothesis takes one place
-- denominator: captures of case type 'novel' that have an expected family
-- rows: valid captures in the release window; case type and expected family from the labels,
--   else the latest review; novel captures without an expected family (null, "" or
--   blanks) are not counted; none left: NULL, not measured (sample size 0)
WITH ranked AS (
  SELECT expected_family,
         list_concat(CASE WHEN rc_family IS NULL THEN [] ELSE [rc_family] END,
                     coalesce(hyp_families, [])) AS families
  FROM release_capture
  WHERE case_type = 'novel' AND expected_family IS NOT NULL
)
SELECT count(*) FILTER (WHERE list_contains(
         list_filter(families, lambda f, i: f IS NOT NULL AND f <> ''
                                            AND list_position(families, f) = i)[1:3],
         expected_family)) AS numerator,
       count(*) AS denominator
FROM ranked
