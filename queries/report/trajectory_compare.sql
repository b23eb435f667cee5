-- Two runs' trajectories on the cases both have a trajectory row for (eval_trajectory):
-- $run_a the reference (a baseline's run), $run_b the candidate. One row: shared cases, the
-- median steps of each, how many of the shared cases reached cited evidence through a tool
-- call in each, and the median step and seconds to it over the cases that did, failed and
-- repeated calls summed. Informational: it decides no gate.
WITH a AS (SELECT * FROM eval_trajectory WHERE run_id = $run_a),
     b AS (SELECT * FROM eval_trajectory WHERE run_id = $run_b),
     p AS (
         SELECT a.steps AS steps_a, b.steps AS steps_b,
                a.evidence_step AS ev_a, b.evidence_step AS ev_b,
                a.evidence_seconds AS sec_a, b.evidence_seconds AS sec_b,
                a.failed_calls AS failed_a, b.failed_calls AS failed_b,
                a.repeated_calls AS rep_a, b.repeated_calls AS rep_b
         FROM a JOIN b USING (case_id)
     )
SELECT count(*)::INTEGER                          AS shared_cases,
       median(steps_a)                            AS median_steps_before,
       median(steps_b)                            AS median_steps_after,
       count(ev_a)::INTEGER                       AS evidence_reached_before,
       count(ev_b)::INTEGER                       AS evidence_reached_after,
       median(ev_a)                               AS median_evidence_step_before,
       median(ev_b)                               AS median_evidence_step_after,
       median(sec_a)                              AS median_evidence_seconds_before,
       median(sec_b)                              AS median_evidence_seconds_after,
       coalesce(sum(failed_a), 0)::INTEGER        AS failed_calls_before,
       coalesce(sum(failed_b), 0)::INTEGER        AS failed_calls_after,
       coalesce(sum(rep_a), 0)::INTEGER           AS repeated_calls_before,
       coalesce(sum(rep_b), 0)::INTEGER           AS repeated_calls_after
FROM p
