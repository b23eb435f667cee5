-- Confusion counts of the judge against people (docs/calibration.md, "Agreement"): one row
-- per level, judge value and people's value with the number of pairs (label_pairs with a
-- people's value), over every item of the level. Decides the cells of each level's confusion
-- table; cells with no pair have no row.
SELECT level, judge_value, human_value, count(*) AS n
FROM label_pairs
WHERE human_value IS NOT NULL
GROUP BY level, judge_value, human_value
ORDER BY list_position(['verdict', 'bucket', 'check', 'detector'], level),
         judge_value, human_value;
