-- At `lab up`, before any client connects: the freshly initialised database becomes the
-- template every scenario of `run --suite lab` starts from (reset_database.sql).
CREATE DATABASE lab_template TEMPLATE lab;
