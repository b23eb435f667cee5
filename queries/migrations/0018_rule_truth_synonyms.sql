-- Migration 0018: the ground truth's declared synonyms (judge.yaml
-- ground_truth.root_cause.synonyms / component_synonyms), so the judge can decide a
-- structured root cause (a family and component the answer states as data: docs/judge.md
-- "Structured root causes") against the truth. Rows judged before this migration have NULL
-- (no synonyms).
ALTER TABLE rule_truth ADD COLUMN IF NOT EXISTS family_synonyms VARCHAR[];
ALTER TABLE rule_truth ADD COLUMN IF NOT EXISTS component_synonyms VARCHAR[];
