-- Review history: decides which analysis of an incident is current and which review counts.
-- reads: release_review, release_analysis
-- writes: TEMP VIEW release_review_history -- every stored review with
--   incident: the analysis's incident_id, else the review's, else the analysis_hash itself;
--   state: 'current' when its analysis is the incident's latest (by analyzed_at, then hash),
--     'historical' when the incident was re-analysed since (a new review surface opened);
--   effective: the latest review (by reviewed_at, then review_id) of its analysis; earlier
--     reviews of the same analysis are kept but superseded.
CREATE OR REPLACE TEMP VIEW release_review_history AS
WITH an AS (
  SELECT r.analysis_hash,
         coalesce(a.incident_id, any_value(r.incident_id) OVER (PARTITION BY r.analysis_hash),
                  r.analysis_hash) AS incident,
         coalesce(a.analyzed_at, min(r.reviewed_at) OVER (PARTITION BY r.analysis_hash))
           AS analyzed_at,
         r.review_id
  FROM release_review r LEFT JOIN release_analysis a USING (analysis_hash)
),
surfaces AS (
  SELECT DISTINCT incident, analysis_hash, analyzed_at FROM an
  UNION
  SELECT coalesce(incident_id, analysis_hash), analysis_hash, analyzed_at FROM release_analysis
),
cur AS (
  SELECT incident, analysis_hash FROM surfaces
  QUALIFY row_number() OVER (PARTITION BY incident ORDER BY analyzed_at DESC,
                                                          analysis_hash DESC) = 1
)
SELECT r.*, an.incident, an.analyzed_at,
       CASE WHEN cur.analysis_hash IS NOT NULL THEN 'current' ELSE 'historical' END AS state,
       row_number() OVER (PARTITION BY r.analysis_hash
                          ORDER BY r.reviewed_at DESC, r.review_id DESC) = 1 AS effective
FROM release_review r
JOIN an USING (review_id)
LEFT JOIN cur ON cur.incident = an.incident AND cur.analysis_hash = r.analysis_hash;
