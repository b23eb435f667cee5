-- The manifest lines whose views and macros this connection already holds (run_phase skips
-- them: rcaeval.judge._manifest, docs/judge.md "The manifest"). j_defined is a TEMP table, so
-- it lives exactly as long as the TEMP views it lists, and a rolled-back definition takes its
-- row with it. Decides nothing.
CREATE TEMP TABLE IF NOT EXISTS j_defined (line VARCHAR);
SELECT line FROM j_defined;
