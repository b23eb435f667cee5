-- metric: capture_confidence_reliability
-- kind: breakdown
-- reads: release_confidence
-- key: bin
-- rates: accuracy = correct / n
-- params: $bins
-- rows: decides the reliability curve of the ranker's confidence: valid captures in the
--   release window whose response carries confidence_diagnostics.probability (finite, in
--   [0, 1]), names a root-cause family and has an expected family (labels or latest review),
--   split into $bins equal-width bins of the probability (bin k holds [k/$bins, (k+1)/$bins),
--   the last bin includes 1.0). One row per bin that holds a capture: bin (0-based), lower,
--   upper, n, correct (the named family is the expected one), mean_probability. A calibrated
--   ranker's accuracy is close to mean_probability in every bin.
WITH rows AS (
  SELECT probability, correct,
         least(CAST(floor(probability * $bins) AS BIGINT), $bins - 1) AS bin
  FROM release_confidence
  WHERE correct IS NOT NULL
)
SELECT bin, bin / $bins::DOUBLE AS lower, (bin + 1) / $bins::DOUBLE AS upper,
       count(*) AS n, count(*) FILTER (WHERE correct) AS correct,
       avg(probability) AS mean_probability
FROM rows
GROUP BY bin
ORDER BY bin
