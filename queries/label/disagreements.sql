-- Where the judge and people disagree (docs/calibration.md, "Agreement"): one row per pair of
-- label_pairs whose judge value differs from the people's value, with the judge's reason for
-- the verdict and the notes of the case run's labels. Decides the disagreement list the CLI
-- prints and the notebook links to each case run's drill-down.
SELECT p.level, p.item, p.run_id, p.case_id, p.judge_value, p.human_value, p.labellers,
       j.verdict AS judge_verdict, j.reason AS judge_reason,
       (SELECT string_agg(e.labeller || ': ' || e.notes, ' | ' ORDER BY e.labeller)
        FROM label_effective e
        WHERE e.run_id = p.run_id AND e.case_id = p.case_id AND coalesce(e.notes, '') <> ''
       ) AS notes
FROM label_pairs p
JOIN eval_judgment j ON j.run_id = p.run_id AND j.case_id = p.case_id
WHERE p.human_value IS NOT NULL AND p.judge_value <> p.human_value
ORDER BY list_position(['verdict', 'bucket', 'check', 'detector'], p.level), p.item,
         p.run_id, p.case_id;
