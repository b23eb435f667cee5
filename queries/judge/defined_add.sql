-- Record that a manifest line's TEMP views and macros now exist on this connection
-- (judge/defined_lines.sql). Decides nothing.
INSERT INTO j_defined VALUES ($line);
