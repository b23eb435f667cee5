-- The judged (run_id, case_id) keys of the current j_scope, in the order every judge frame
-- uses (run_id, case_id). judge_loaded / judge_audit cut this list into chunks of
-- `chunk_size` keys and judge one chunk per pass (docs/judge.md, "Chunks and memory").
-- Sequencing only, not judging logic: this directory is not part of judge_sql_digest.
SELECT run_id, case_id
FROM j_scope
ORDER BY run_id, case_id;
