-- Reads one CSV input of offline evaluation (an OpenRCA query or predictions file, a ranked
-- list, a truth file) as text, strictly: comma-separated, '"' quotes doubled inside quoted
-- values, the first line a header (checked by the caller, which also supplies the column
-- names in $columns), every value VARCHAR (the caller validates types), a row with more or
-- fewer fields than the header an error, blank lines skipped. An unquoted empty value is
-- NULL, a quoted one ''. Rows come back in file order. On any error the caller re-reads the
-- file with Python's csv module to report the exact line.
SELECT *
FROM read_csv($path,
              header = true,
              auto_detect = false,
              columns = $columns,
              all_varchar = true,
              delim = ',',
              quote = '"',
              escape = '"',
              strict_mode = true,
              null_padding = false,
              allow_quoted_nulls = false,
              max_line_size = 268435456)
