-- Migration 0021: the incident lab's mitigation of each case run of `run --suite lab`
-- (docs/lab.md, "Mitigation, verified"), beside the judge's verdict, which it never changes.
-- One row per (run_id, case_id): the scenario, the alert and how long it took to fire, the
-- mitigation outcome, time to diagnosis and to mitigation, and the actions (JSON, the lab's
-- action log since the alert).

CREATE TABLE IF NOT EXISTS eval_lab_mitigation (
    run_id               VARCHAR NOT NULL,
    case_id              VARCHAR NOT NULL,
    scenario_id          VARCHAR NOT NULL,
    alert                VARCHAR,
    alert_after_s        DOUBLE,             -- injection -> the expected alert firing
    mitigation           VARCHAR NOT NULL,   -- resolved | not_resolved | not_attempted | unsafe
    time_to_diagnosis_s  DOUBLE,             -- alert -> first call naming a key metric
    time_to_mitigation_s DOUBLE,             -- alert -> last applied action (resolved only)
    recovery_after_s     DOUBLE,             -- recovery check start -> SLO held (resolved)
    actions_applied      INTEGER NOT NULL,
    unsafe_attempts      INTEGER NOT NULL,
    actions              JSON NOT NULL,
    error                VARCHAR,            -- what the lab could not do (the case's note)
    PRIMARY KEY (run_id, case_id)
);
