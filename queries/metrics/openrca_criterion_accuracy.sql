-- metric: openrca_criterion_accuracy
-- kind: rate
-- reads: openrca_scores
-- numerator: criteria of kind $criterion ('component', 'reason' or 'time') hit by the best
--   assignment of predictions to ground-truth root causes
-- denominator: criteria of kind $criterion in the scoring points of every scored row
-- rows: one row per OpenRCA query row scored by `rcaeval offline openrca`; a row whose
--   number of predicted root causes differs from the ground truth contributes its criteria
--   and no hit; rows without that criterion contribute nothing
-- params: $criterion
SELECT coalesce(sum(CASE $criterion WHEN 'component' THEN component_hits
                                    WHEN 'reason' THEN reason_hits
                                    WHEN 'time' THEN time_hits END), 0) AS numerator,
       coalesce(sum(CASE $criterion WHEN 'component' THEN component_criteria
                                    WHEN 'reason' THEN reason_criteria
                                    WHEN 'time' THEN time_criteria END), 0) AS denominator
FROM openrca_scores
