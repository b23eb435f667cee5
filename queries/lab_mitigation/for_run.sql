-- A run's lab mitigation beside each case's verdict (reports, `rcaeval report`).
SELECT m.case_id, j.verdict, m.alert, m.alert_after_s, m.mitigation, m.time_to_diagnosis_s,
       m.time_to_mitigation_s, m.actions_applied, m.unsafe_attempts, m.error
FROM eval_lab_mitigation m
LEFT JOIN eval_judgment j ON j.run_id = m.run_id AND j.case_id = m.case_id
WHERE m.run_id = $run_id
ORDER BY m.case_id;
