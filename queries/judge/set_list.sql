-- The names of one catalog list (rcaeval.judge._manifest.LISTS: the manifest line
-- `judge/set_list.sql $<list>` binds them as $names) as the variable j_list_<list>, for the
-- statements that range over every name of it (judge/method_union.sql, bucket_union.sql).
-- Decides nothing.
SET VARIABLE j_list_{list} = $names;
