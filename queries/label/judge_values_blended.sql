-- What the blended judge said (docs/calibration.md, "The semantic shadow"): temp table
-- label_judge like judge_values.sql, but the verdict of a case run the shadow judged again is
-- its blended verdict (eval_judgment_blended) and a diagnosis check the shadow voted on takes
-- the samples' majority (eval_semantic_check.sem_passed; a tie keeps the deterministic
-- result). Decides the blended side of the deterministic-vs-blended comparison; every other
-- item is the deterministic judge's, so the two differ only where the shadow decided.
CREATE OR REPLACE TEMP TABLE label_judge AS
WITH det AS (
    SELECT * FROM label_judge_deterministic
)
SELECT d.level, d.item, d.run_id, d.case_id,
       CASE
           WHEN d.level = 'verdict' THEN coalesce(bj.verdict, d.value)
           WHEN d.level = 'check' AND sc.sem_passed IS NOT NULL
               THEN CASE WHEN sc.sem_passed THEN 'pass' ELSE 'fail' END
           WHEN d.level = 'bucket' AND d.item = 'diagnosis' AND bj.diagnosis_status IS NOT NULL
               THEN CASE WHEN bj.diagnosis_status = 'pass' THEN 'pass' ELSE 'fail' END
           ELSE d.value
       END AS value,
       d.judge_version, d.rules_hash
FROM det d
LEFT JOIN eval_judgment_blended bj ON bj.run_id = d.run_id AND bj.case_id = d.case_id
LEFT JOIN eval_semantic_check sc
       ON d.level = 'check' AND sc.run_id = d.run_id AND sc.case_id = d.case_id
      AND 'diagnosis.' || sc.check_id = d.item;
