-- The log index of rcaeval/tools/_logindex.py: one row per non-blank line of an incident's
-- logs/*.log files, as rcaeval.tools._logstore.parse_log_file reads it, so that
-- search_logs filters a gigabyte of lines without parsing them again. seq is the serving
-- order (file by file in name order, then line order); at_us the line's time in
-- microseconds since the epoch (NULL: no parsable time); level_rank its level's place in
-- TRACE..FATAL (-1: none); component_lc the component lower-cased by Python.
-- log_hits is the filter every search shares: a NULL argument filters nothing.
CREATE TABLE log_file (file_no INTEGER, instance VARCHAR, id_stem VARCHAR);
CREATE TABLE log_line (seq BIGINT, file_no INTEGER, line_no INTEGER, ts VARCHAR,
                       at_us BIGINT, level VARCHAR, level_rank TINYINT, component VARCHAR,
                       component_lc VARCHAR, message VARCHAR);
CREATE TABLE log_meta (format INTEGER, n_lines BIGINT, first_ts VARCHAR, last_ts VARCHAR);
CREATE MACRO log_hits(comp, fno, floor, s_us, e_us) AS TABLE
    SELECT * FROM log_line
    WHERE (comp IS NULL OR component_lc = comp)
      AND (fno IS NULL OR file_no = fno)
      AND level_rank >= floor
      AND (s_us IS NULL OR at_us >= s_us)
      AND (e_us IS NULL OR at_us <= e_us);
