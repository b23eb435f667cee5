-- Scenario lab-disk-full: a tablespace on the lab's size-limited volume (psql variables
-- :volume, :location).
CREATE TABLESPACE :"volume" LOCATION :'location';
