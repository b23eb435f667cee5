-- Verified actions: decides which "action that worked" is proof that it fixed an incident.
-- reads: release_review_history (review_history.sql)
-- params: $verified -- the resolution outcomes that verify an action (resolved, mitigated)
-- returns one row per effective review (current or historical surface) whose resolution
--   outcome is one of $verified and which names the action; a report recommendation, an
--   unresolved or false-positive review, or a superseded review never yields one.
SELECT incident, analysis_hash, review_id, expected_family AS family,
       action_that_worked AS action, resolution_outcome, reviewed_at, reviewer, state
FROM release_review_history
WHERE effective
  AND list_contains($verified, resolution_outcome)
  AND coalesce(trim(action_that_worked), '') <> ''
ORDER BY incident, reviewed_at, review_id;
