-- One case run's lab mitigation (rcaeval.lab._record); a re-recorded case replaces its row.
INSERT OR REPLACE INTO eval_lab_mitigation
    (run_id, case_id, scenario_id, alert, alert_after_s, mitigation, time_to_diagnosis_s,
     time_to_mitigation_s, recovery_after_s, actions_applied, unsafe_attempts, actions, error)
VALUES ($run_id, $case_id, $scenario_id, $alert, $alert_after_s, $mitigation,
        $time_to_diagnosis_s, $time_to_mitigation_s, $recovery_after_s, $actions_applied,
        $unsafe_attempts, $actions, $error);
