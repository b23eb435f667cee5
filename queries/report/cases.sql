-- One row per case of a run: the union of eval_case_runs and eval_judgment (a run judged from
-- an audit dir may have judgments only; an errored case may have no judgment), with its
-- execution record, its verdict, and the first failing bucket and check (report order, then
-- required checks first, then check id). Parameters: $run_id, $bucket_order (VARCHAR[]).
WITH ids AS (
    SELECT case_id FROM eval_case_runs WHERE run_id = $run_id
    UNION
    SELECT case_id FROM eval_judgment WHERE run_id = $run_id
),
failing_bucket AS (
    SELECT case_id, bucket, status
    FROM eval_bucket
    WHERE run_id = $run_id AND status IN ('fail', 'partial')
    QUALIFY row_number() OVER (
        PARTITION BY case_id
        ORDER BY coalesce(list_position($bucket_order, bucket), 1000), bucket
    ) = 1
),
failing_check AS (
    SELECT c.case_id, c.check_id
    FROM eval_check c
    JOIN failing_bucket fb ON fb.case_id = c.case_id AND fb.bucket = c.bucket
    WHERE c.run_id = $run_id AND NOT coalesce(c.passed, false)
    QUALIFY row_number() OVER (
        PARTITION BY c.case_id
        ORDER BY coalesce(c.required, false) DESC, c.check_id
    ) = 1
)
SELECT
    i.case_id,
    coalesce(j.case_type, m.case_type)      AS case_type,
    cr.status                               AS run_status,
    cr.attempts,
    cr.workspace_id,
    cr.audit_path,
    cr.started_at,
    cr.finished_at,
    cr.duration_s,
    cr.input_tokens,
    cr.output_tokens,
    cr.cache_read_tokens,
    cr.cache_write_tokens,
    cr.cost_usd,
    cr.error,
    j.verdict,
    j.subtype,
    j.score,
    j.raw_score,
    j.hard_gate,
    j.scoring_profile,
    j.judge_version,
    coalesce(j.rules_hash, m.rules_hash)    AS rules_hash,
    j.reason,
    fb.bucket                               AS failing_bucket,
    fb.status                               AS failing_bucket_status,
    fc.check_id                             AS failing_check
FROM ids i
LEFT JOIN eval_case_runs cr ON cr.run_id = $run_id AND cr.case_id = i.case_id
LEFT JOIN eval_judgment j   ON j.run_id = $run_id AND j.case_id = i.case_id
LEFT JOIN case_meta m       ON m.run_id = $run_id AND m.case_id = i.case_id
LEFT JOIN failing_bucket fb ON fb.case_id = i.case_id
LEFT JOIN failing_check fc  ON fc.case_id = i.case_id
ORDER BY i.case_id
