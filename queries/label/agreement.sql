-- Agreement of the judge with people (docs/calibration.md, "Agreement"): one row per level
-- (verdict, bucket, check, detector) and item, plus each level's total row (item NULL), over
-- label_pairs. Decides n (pairs with a people's value), agree (judge value = people's value),
-- ties (labellers split evenly), the judge's and the people's positive counts (pass / fires),
-- chance agreement p_e from both sides' marginals over every category, and Cohen's kappa
-- (p_o - p_e) / (1 - p_e), NULL when p_e = 1 (one value everywhere: agreement cannot be told
-- from chance). The verdict has its total row only. The raw agreement's Wilson interval is added by rcaeval.label.
WITH p AS (
    SELECT * FROM label_pairs WHERE human_value IS NOT NULL
), counts AS (
    SELECT level, item, count(*) AS n,
           count(*) FILTER (WHERE judge_value = human_value) AS agree,
           count(*) FILTER (WHERE judge_value IN ('pass', 'fires')) AS judge_positive,
           count(*) FILTER (WHERE human_value IN ('pass', 'fires')) AS human_positive,
           max(labellers)::BIGINT AS max_labellers
    FROM p
    GROUP BY GROUPING SETS ((level, item), (level))
), ties AS (
    SELECT level, item, count(*) FILTER (WHERE human_value IS NULL) AS ties
    FROM label_pairs
    GROUP BY GROUPING SETS ((level, item), (level))
), sides AS (
    SELECT level, item, judge_value AS category, 1 AS j, 0 AS h FROM p
    UNION ALL
    SELECT level, item, human_value, 0, 1 FROM p
), marginals AS (
    SELECT level, item, category, sum(j) AS j, sum(h) AS h
    FROM sides
    GROUP BY GROUPING SETS ((level, item, category), (level, category))
), chance AS (
    SELECT level, item, sum(j * h) / (sum(j) * sum(h)) AS p_e
    FROM marginals
    GROUP BY level, item
)
SELECT c.level, c.item, c.n, c.agree, c.n - c.agree AS disagree, t.ties,
       c.judge_positive, c.human_positive, c.max_labellers,
       c.agree / c.n AS agreement, ch.p_e,
       CASE WHEN ch.p_e >= 1 THEN NULL ELSE (c.agree / c.n - ch.p_e) / (1 - ch.p_e) END
           AS kappa
FROM counts c
JOIN ties t ON t.level = c.level AND t.item IS NOT DISTINCT FROM c.item
JOIN chance ch ON ch.level = c.level AND ch.item IS NOT DISTINCT FROM c.item
WHERE NOT (c.level = 'verdict' AND c.item IS NOT NULL)
ORDER BY list_position(['verdict', 'bucket', 'check', 'detector'], c.level),
         c.item IS NOT NULL, c.item;
