-- What an import of reviews will change, before it is applied.
-- reads: review_import, release_review
-- returns one row: new (review_id not stored), changed (stored with other content),
--   unchanged (stored identically).
SELECT count(*) FILTER (WHERE r.review_id IS NULL)                               AS new,
       count(*) FILTER (WHERE r.review_id IS NOT NULL
                          AND r.content_sha256 <> i.content_sha256)             AS changed,
       count(*) FILTER (WHERE r.content_sha256 = i.content_sha256)               AS unchanged
FROM review_import i LEFT JOIN release_review r USING (review_id);
