-- The knowledge packages a measurement measured: decides what an artifact's
-- provenance.knowledge records (the gate's --require-package compares with it).
-- reads: release_knowledge (trace.sql)
-- writes: rows (package_id, activation_path, captures) -- one per distinct package and
--   activation path of the measured captures, the captures that record none (capture/1
--   rows) as one row of NULLs; most captures first, then package id and path.
SELECT package_id, activation_path, count(*) AS captures
FROM release_knowledge
GROUP BY package_id, activation_path
ORDER BY captures DESC, package_id NULLS LAST, activation_path NULLS LAST
