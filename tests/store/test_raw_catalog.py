"""The raw-table catalog (rcaeval/extract/_schema.py RAW_CATALOG) is the one home of the raw
tables' schemas: a store built by every migration holds exactly its tables, columns and types,
and the Arrow schemas extraction builds are derived from it."""

from __future__ import annotations

from pathlib import Path

import rcaeval.store as st
from rcaeval.extract import PAYLOAD_SCHEMAS, RAW_CATALOG, RAW_TABLES


def test_migrated_raw_tables_are_the_catalog(db_path: Path) -> None:
    with st.connect(db_path) as store:
        rows = store.con.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_name LIKE 'raw\\_%' ESCAPE '\\' ORDER BY table_name, ordinal_position"
        ).fetchall()
    stored: dict[str, set[tuple[str, str]]] = {}
    for table, column, dtype in rows:
        stored.setdefault(table, set()).add((column, dtype))
    assert sorted(stored) == sorted(RAW_TABLES)
    for name, table in RAW_CATALOG.items():
        assert stored[name] == set(table.store_columns), name
        assert len(table.store_columns) == len({c for c, _ in table.store_columns}), name


def test_arrow_schemas_follow_the_catalog() -> None:
    assert RAW_TABLES[0] == "raw_bundle" and not RAW_CATALOG["raw_bundle"].chunk_input
    assert RAW_CATALOG["raw_json"].chunk_excluded == ("bundle_seq", "elided_json")
    for name, table in RAW_CATALOG.items():
        schema = PAYLOAD_SCHEMAS[name]
        assert schema.names == [c for c, _ in table.columns]
        assert all(c in dict(table.store_columns) for c in table.chunk_excluded)
