-- Records one log file of the index: its number, the instance it serves and its id stem.
INSERT INTO log_file VALUES ($1, $2, $3);
