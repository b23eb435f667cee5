-- Appends one batch of parsed lines (the Arrow table registered as log_batch, columns in
-- log_line's order) to the log index.
INSERT INTO log_line SELECT * FROM log_batch;
