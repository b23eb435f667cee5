-- Bucket scores (docs/scoring.md): score = profile maximum × the bucket's score fraction
-- (buckets/*.sql decide which weights a fraction counts). Diagnosis = hard maximum ×
-- frac_hard + supporting maximum × frac_supporting. contract and execution_contract are gates
-- and carry no score; a not_evaluated bucket scores 0. Inputs: j_bucket (every bucket row),
-- j_scope (the case's scoring_profile), j_profile(profile, component, max_score).
CREATE OR REPLACE TEMP VIEW bucket_scored AS
SELECT b.run_id, b.case_id, b.bucket, b.status, b.reason,
       CASE WHEN b.bucket IN ('contract', 'execution_contract') THEN NULL
            WHEN b.bucket = 'diagnosis'
                THEN round(coalesce(h.max_score * b.frac_hard, 0)
                           + coalesce(s.max_score * b.frac_supporting, 0), 4)
            ELSE round(coalesce(m.max_score * b.frac, 0), 4) END AS score,
       CASE WHEN b.bucket = 'diagnosis' THEN h.max_score + s.max_score
            ELSE m.max_score END AS max_score
FROM j_bucket AS b
JOIN j_scope AS k ON k.run_id = b.run_id AND k.case_id = b.case_id
LEFT JOIN j_profile AS m ON m.profile = k.scoring_profile AND m.component = b.bucket
LEFT JOIN j_profile AS h ON b.bucket = 'diagnosis' AND h.profile = k.scoring_profile
                        AND h.component = 'diagnosis_hard'
LEFT JOIN j_profile AS s ON b.bucket = 'diagnosis' AND s.profile = k.scoring_profile
                        AND s.component = 'diagnosis_supporting';
