-- `rcaeval case try`: the bucket rows and the verdict of the judged answers.
SELECT b.run_id, b.case_id, b.bucket, b.status, b.score, b.max_score, b.reason,
       j.verdict, j.subtype, j.score AS case_score, j.reason AS verdict_reason
FROM eval_bucket AS b
JOIN eval_judgment AS j ON j.run_id = b.run_id AND j.case_id = b.case_id
ORDER BY b.run_id, b.case_id, list_position($buckets, b.bucket);
