-- Record the analyses reviews refer to: decides when each analysis was made.
-- reads: analysis_import(analysis_hash, incident_id, analyzed_at, capture_id, source) -- from
--   captures (source 'capture': analyzed_at = captured_at) or, for analyses no capture
--   describes, from reviews (source 'review': analyzed_at = its first review)
-- writes: release_analysis -- a capture's time always wins over a review-derived one; a
--   review-derived time only moves earlier; a known incident_id is never erased.
INSERT INTO release_analysis
SELECT analysis_hash, any_value(incident_id), min(analyzed_at), any_value(capture_id),
       any_value(source)
FROM analysis_import GROUP BY analysis_hash
ON CONFLICT (analysis_hash) DO UPDATE SET
  analyzed_at = CASE
    WHEN excluded.source = 'capture' THEN excluded.analyzed_at
    WHEN release_analysis.source = 'capture' THEN release_analysis.analyzed_at
    ELSE least(release_analysis.analyzed_at, excluded.analyzed_at) END,
  incident_id = coalesce(excluded.incident_id, release_analysis.incident_id),
  capture_id = coalesce(excluded.capture_id, release_analysis.capture_id),
  source = CASE WHEN excluded.source = 'capture' OR release_analysis.source = 'capture'
                THEN 'capture' ELSE 'review' END;
