-- Store.write_frame: append a frame's rows to {table} by column name; columns the frame lacks
-- get the table's default.
-- {table}: the target, quoted. {columns}: the frame's columns, quoted, comma-separated.
-- {view}: the frame, registered as a quoted view name.
INSERT INTO {table} ({columns}) SELECT {columns} FROM {view};
