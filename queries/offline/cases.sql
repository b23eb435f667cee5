-- The per-case rows of offline_case_eval in fixture-file order (what `rcaeval offline score`
-- and `rcaeval offline novel-gate` print and write with --cases-out).
SELECT * FROM offline_case_eval ORDER BY line
