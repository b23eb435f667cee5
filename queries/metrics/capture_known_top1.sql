-- metric: capture_known_top1
-- kind: rate
-- reads: release_capture
-- numerator: known captures whose final (post-harness) root-cause family equals the expected
--   family (case-insensitive); a withdrawn family (no cause named) does not match, even
--   when the top hypothesis is right (the one definition of Top-1, as offline_known_top1)
-- denominator: captures of case type 'known' that have an expected family
-- rows: valid captures in the release window (rcaeval release metrics); the case type and
--   expected family come from the capture's labels, else from its latest operator review;
--   known captures without an expected family (null, "" or blanks) are not counted; none
--   left: NULL, not measured (sample size 0)
SELECT count(*) FILTER (WHERE rc_family = expected_family) AS numerator,
       count(*) AS denominator
FROM release_capture
WHERE case_type = 'known' AND expected_family IS NOT NULL
