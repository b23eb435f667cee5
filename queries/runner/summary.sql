-- One row per case of a run: execution record + verdict (NULL when not judged).
SELECT c.case_id,
       c.status,
       c.attempts,
       c.duration_s,
       c.error,
       c.audit_path,
       c.input_tokens,
       c.output_tokens,
       c.cost_usd,
       j.verdict,
       j.subtype,
       j.score,
       coalesce(j.case_type, m.case_type) AS case_type
FROM eval_case_runs AS c
LEFT JOIN eval_judgment AS j ON j.run_id = c.run_id AND j.case_id = c.case_id
LEFT JOIN case_meta AS m ON m.run_id = c.run_id AND m.case_id = c.case_id
WHERE c.run_id = $run_id
ORDER BY c.case_id;
