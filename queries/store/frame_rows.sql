-- The rows of one table for a Store frame accessor (table(), runs(), judgments(), ...), in a
-- deterministic order: the accessor's order first, then every other column, so ties never
-- depend on storage (rcaeval.store._store.Store._select).
-- {table}: the table, quoted. {filters}: the accessor's filters joined by AND, one per
-- filtered column (`"col" = ?` or `list_contains(?, "col")`, values as ? params), or `true`.
-- {order}: the ORDER BY keys, quoted columns (buckets by their report rank).
SELECT * FROM {table} WHERE {filters} ORDER BY {order};
