-- bench/bench_jsontree.py: what json_tree must produce for a raw_json row (its path, parent
-- path, key, type and scalar text) for every value of every document of bench_docs (doc, text),
-- in document order.
SELECT d.doc, j.id, j.parent, j.key, j.type, j.fullkey, j.path,
       CASE WHEN j.type NOT IN ('OBJECT', 'ARRAY') THEN j.atom END AS atom
FROM bench_docs AS d, json_tree(d.text) AS j
ORDER BY d.doc, j.id;
