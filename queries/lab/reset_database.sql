-- Between the scenarios of `run --suite lab`: the database is restored from its template
-- (whatever a fault or an agent's action changed is gone), its sessions ended first.
DROP DATABASE IF EXISTS lab WITH (FORCE);
CREATE DATABASE lab TEMPLATE lab_template;
