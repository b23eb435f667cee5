-- Where a release measurement spills: DuckDB writes what does not fit under the memory limit
-- (the parsed window, capture_scan.sql's capture_row, among others) to files in $dir, a
-- directory of its own under the system's temporary directory that DuckDB creates when it
-- first spills and removes when the connection closes (never the current directory).
SET temp_directory = $dir;
