-- Label history (docs/calibration.md, "Labels and history"): every stored label of run
-- $run_id (NULL: any) with `effective` true for the one of each labeller that counts (the
-- latest, as queries/label/effective.sql decides for sheet labels).
SELECT run_id, case_id, labeller, source, verdict, root_cause_correct, evidence_adequate,
       unsafe_advice, labelled_at, imported_at, source_file, source_line, label_id,
       row_number() OVER (PARTITION BY run_id, case_id, labeller
                          ORDER BY labelled_at DESC, imported_at DESC,
                                   source_line DESC NULLS LAST, label_id DESC) = 1
           AS effective
FROM eval_label
WHERE $run_id IS NULL OR run_id = $run_id
ORDER BY run_id, case_id, labeller, labelled_at, imported_at;
