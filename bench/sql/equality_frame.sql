-- bench/judge_equality.py: what the runner judged, as the judging calls return it (one row a
-- judged case run; the harness compares the eval_* tables in full besides).
SELECT run_id, case_id, verdict, subtype, score, raw_score
FROM eval_judgment
ORDER BY run_id, case_id;
