-- Scope check: the scoring profiles the judged cases name (the judge refuses one that
-- rcaeval/judge/profiles.yaml does not define).
SELECT DISTINCT scoring_profile FROM j_scope ORDER BY 1;
