-- Revert of lab-disk-full: the volume's tablespace goes (its tables are moved back first).
DROP TABLESPACE IF EXISTS :"volume";
