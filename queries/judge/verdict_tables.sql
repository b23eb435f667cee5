-- The pass's scored buckets and verdicts as tables (scores.sql, verdict.sql define them as
-- views): j_bucket_scored and j_verdict are what the frames, the packets and the eval_*
-- writers read, so the verdict logic runs once per pass.
CREATE OR REPLACE TEMP TABLE j_bucket_scored AS
SELECT * FROM bucket_scored;

CREATE OR REPLACE TEMP TABLE j_verdict AS
SELECT * FROM verdict;
