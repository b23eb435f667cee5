-- metric: capture_evidence_link_precision
-- kind: rate
-- reads: release_capture
-- numerator: evidence links that the reviewer labelled relevant
-- denominator: evidence links of labelled captures: each distinct evidence id cited by the
--   final root cause or by a material claim of a capture, pooled over captures (micro
--   average; the interval treats links as independent)
-- rows: valid captures in the release window whose labels carry relevant_evidence_ids (ids
--   as in the final response, E01...); captures without that label are not counted, nor is
--   a labelled capture that cites nothing; no link: NULL, not measured (sample size 0)
SELECT count(*) FILTER (WHERE list_contains(relevant_evidence_ids, id)) AS numerator,
       count(*) AS denominator
FROM (SELECT unnest(cited_ids) AS id, relevant_evidence_ids FROM release_capture
      WHERE relevant_evidence_ids IS NOT NULL)
