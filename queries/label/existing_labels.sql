-- Label ids already stored (docs/calibration.md, "Labels and history"): which of the ids in
-- $label_ids eval_label holds. Decides which rows of a re-imported sheet are unchanged and
-- skipped (a changed label has a new id and is added as history).
SELECT label_id FROM eval_label WHERE list_contains($label_ids, label_id);
