-- The index's files in serving order.
SELECT file_no, instance, id_stem FROM log_file ORDER BY file_no;
