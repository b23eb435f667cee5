-- The distinct components of the index's lines (Python drops empty ones and sorts them).
SELECT DISTINCT component FROM log_line WHERE component IS NOT NULL;
