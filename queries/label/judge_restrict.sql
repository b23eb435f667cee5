-- The gate compares like with like (docs/calibration.md, "The judge gate"): delete from temp
-- table label_judge every value of a case run judge version $judge_version recorded nothing
-- for in label_baseline. Decides that the current judge is measured on exactly the labelled
-- case runs the baseline was.
DELETE FROM label_judge j
WHERE NOT EXISTS (SELECT 1 FROM label_baseline b
                  WHERE b.judge_version = $judge_version AND b.run_id = j.run_id
                    AND b.case_id = j.case_id);
