-- Move one table into a tablespace (psql variables :table, :tablespace).
ALTER TABLE :"table" SET TABLESPACE :"tablespace";
