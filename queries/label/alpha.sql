-- Krippendorff's alpha, nominal (docs/calibration.md, "Several labellers"): one row per
-- level and raters (`people`: the labellers only; `people+judge`: the judge as one more rater)
-- over the items two or more raters valued. Decides units (items with >= 2 raters), pairable
-- values n, and alpha = 1 - (n - 1) * sum_u (m_u^2 - sum_c n_uc^2) / (m_u - 1)
--                          / (n^2 - sum_c n_c^2),
-- with m_u the raters of unit u, n_uc those giving value c, n_c the total of value c. NULL
-- when there is no pairable unit or every value is the same (no expected disagreement).
WITH people AS (
    SELECT 'people' AS raters, level, item, run_id, case_id, labeller AS rater, value
    FROM label_human
), with_judge AS (
    SELECT 'people+judge' AS raters, level, item, run_id, case_id, rater, value FROM people
    UNION ALL
    SELECT 'people+judge', j.level, j.item, j.run_id, j.case_id, chr(0) || 'judge', j.value
    FROM label_judge j
    WHERE EXISTS (SELECT 1 FROM label_human h
                  WHERE h.level = j.level AND h.item = j.item AND h.run_id = j.run_id
                    AND h.case_id = j.case_id)
), ratings AS (
    SELECT * FROM people UNION ALL SELECT * FROM with_judge
), unit_value AS (
    SELECT raters, level, item, run_id, case_id, value, count(*) AS n_uc
    FROM ratings
    GROUP BY ALL
), units AS (
    SELECT raters, level, item, run_id, case_id, sum(n_uc) AS m_u,
           sum(n_uc * n_uc) AS sq
    FROM unit_value
    GROUP BY ALL
    HAVING sum(n_uc) >= 2
), observed AS (
    SELECT raters, level, count(*) AS units, sum(m_u) AS n,
           sum((m_u * m_u - sq) / (m_u - 1)) AS d_o
    FROM units
    GROUP BY raters, level
), value_totals AS (
    SELECT v.raters, v.level, v.value, sum(v.n_uc) AS n_c
    FROM unit_value v
    JOIN units u USING (raters, level, item, run_id, case_id)
    GROUP BY v.raters, v.level, v.value
), expected AS (
    SELECT raters, level, sum(n_c * n_c) AS sq_c
    FROM value_totals
    GROUP BY raters, level
)
SELECT o.raters, o.level, o.units, o.n::BIGINT AS n,
       CASE WHEN o.n * o.n - e.sq_c = 0 THEN NULL
            ELSE 1 - (o.n - 1) * o.d_o / (o.n * o.n - e.sq_c) END AS alpha
FROM observed o JOIN expected e USING (raters, level)
ORDER BY list_position(['verdict', 'bucket', 'check', 'detector'], o.level), o.raters;
