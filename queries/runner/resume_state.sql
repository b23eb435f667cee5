-- Per case of a run: its status and whether a judgment row exists. A case is finished when
-- its status is final (judged | errored | timed_out) and, unless errored, it has a judgment.
SELECT c.case_id,
       c.status,
       EXISTS (SELECT 1 FROM eval_judgment AS j
               WHERE j.run_id = c.run_id AND j.case_id = c.case_id) AS has_judgment,
       (c.status = 'errored'
        OR (c.status IN ('judged', 'timed_out')
            AND EXISTS (SELECT 1 FROM eval_judgment AS j
                        WHERE j.run_id = c.run_id AND j.case_id = c.case_id))) AS finished
FROM eval_case_runs AS c
WHERE c.run_id = $run_id
ORDER BY c.case_id;
