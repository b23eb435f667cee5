-- What the deterministic judge said, item by item (docs/calibration.md, "What is compared"):
-- temp table label_judge, one row per (level, item, run_id, case_id) of every case run with a
-- label (label_effective). Decides the judge's value: the verdict; a bucket passes when its
-- status is pass (partial and fail are fail; not_evaluated buckets are left out); a check
-- passes or fails (item `bucket.check_id`); a detector fires or is silent (its
-- `detector.<id>` fact). Carries the judgment's judge version and rules hash.
CREATE OR REPLACE TEMP TABLE label_judge AS
WITH keys AS (
    SELECT DISTINCT j.run_id, j.case_id, j.judge_version, j.rules_hash
    FROM eval_judgment j
    JOIN label_effective e ON e.run_id = j.run_id AND e.case_id = j.case_id
)
SELECT 'verdict' AS level, 'verdict' AS item, j.run_id, j.case_id, j.verdict AS value,
       k.judge_version, k.rules_hash
FROM eval_judgment j JOIN keys k ON k.run_id = j.run_id AND k.case_id = j.case_id
UNION ALL
SELECT 'bucket', b.bucket, b.run_id, b.case_id,
       CASE WHEN b.status = 'pass' THEN 'pass' ELSE 'fail' END, k.judge_version, k.rules_hash
FROM eval_bucket b JOIN keys k ON k.run_id = b.run_id AND k.case_id = b.case_id
WHERE b.status <> 'not_evaluated'
UNION ALL
SELECT 'check', c.bucket || '.' || c.check_id, c.run_id, c.case_id,
       CASE WHEN c.passed THEN 'pass' ELSE 'fail' END, k.judge_version, k.rules_hash
FROM eval_check c JOIN keys k ON k.run_id = c.run_id AND k.case_id = c.case_id
WHERE c.passed IS NOT NULL
UNION ALL
SELECT 'detector', substr(f.fact, length('detector.') + 1), f.run_id, f.case_id,
       CASE WHEN f.value THEN 'fires' ELSE 'silent' END, k.judge_version, k.rules_hash
FROM eval_fact f JOIN keys k ON k.run_id = f.run_id AND k.case_id = f.case_id
WHERE f.fact LIKE 'detector.%';
