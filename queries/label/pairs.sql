-- Judge vs people, one pair per item (docs/calibration.md, "What is compared"): temp table
-- label_pairs, one row per (level, item, run_id, case_id) that has both a judge value
-- (label_judge) and a people's value (label_human). Decides the people's value: the strict
-- majority of the labellers (one labeller: theirs); an item the labellers split evenly on has
-- no people's value and is counted in `ties`, outside every agreement figure.
CREATE OR REPLACE TEMP TABLE label_pairs AS
WITH votes AS (
    SELECT level, item, run_id, case_id, value, count(*) AS n
    FROM label_human
    GROUP BY level, item, run_id, case_id, value
), units AS (
    SELECT level, item, run_id, case_id, sum(n) AS labellers, max(n) AS top
    FROM votes
    GROUP BY level, item, run_id, case_id
)
SELECT j.level, j.item, j.run_id, j.case_id, j.value AS judge_value,
       v.value AS human_value, u.labellers, j.judge_version
FROM label_judge j
JOIN units u ON u.level = j.level AND u.item = j.item AND u.run_id = j.run_id
            AND u.case_id = j.case_id
LEFT JOIN votes v ON v.level = u.level AND v.item = u.item AND v.run_id = u.run_id
                 AND v.case_id = u.case_id AND v.n = u.top AND 2 * v.n > u.labellers;
