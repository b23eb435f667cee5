-- Evidence integrity per case of a run (docs/judge.md, "Sealed evidence"): how many records
-- of the sealed evidence files the hosted tools sealed, how many they never returned or were
-- edited after, how many match or contradict the case's incident data, and the first
-- problems. Decides what `explain`, report.txt and the detail report show about it.
-- Parameters: $run_id.
SELECT case_id,
       count(*) AS n,
       bool_or(seal IS NOT NULL) AS sealed_run,
       count(*) FILTER (WHERE seal = 'sealed') AS n_sealed,
       count(*) FILTER (WHERE seal = 'unsealed') AS n_unsealed,
       count(*) FILTER (WHERE seal = 'altered') AS n_altered,
       count(*) FILTER (WHERE incident = 'matches') AS n_match,
       count(*) FILTER (WHERE incident = 'contradicts') AS n_contradict,
       list_slice(list(detail ORDER BY file, record_id) FILTER (WHERE detail IS NOT NULL),
                  1, 5) AS problems
FROM raw_evidence_check
WHERE run_id = $run_id
GROUP BY case_id
ORDER BY case_id
