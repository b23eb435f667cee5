-- Store.write_frame(..., replace_keys=...): before the frame's rows go in, delete the rows of
-- {table} whose key columns equal (NULLs equal) those of any row of the frame, so re-writing is
-- idempotent. Runs in the insert's transaction (queries/store/frame_insert.sql).
-- {table}: the target, quoted. {view}: the frame, registered as a quoted view name.
-- {match}: `t."k" IS NOT DISTINCT FROM f."k"` per key column, joined by AND.
DELETE FROM {table} AS t WHERE EXISTS (SELECT 1 FROM {view} AS f WHERE {match});
