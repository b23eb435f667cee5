"""The keys DuckDB does not enforce (queries/store/unenforced_keys.sql) and the check that
keeps them unique where the package writes those tables outside the judge's writer."""

from __future__ import annotations

import duckdb

from rcaeval._paths import read_statement
from rcaeval.errors import InputError
from rcaeval.store._sqlnames import quote_ident


def unenforced_keys(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    """``{table: key columns}`` of the tables whose key has no PRIMARY KEY constraint."""
    rows = con.execute(read_statement("store/unenforced_keys.sql")).fetchall()
    return {str(t): list(k) for t, k in rows}


def duplicate_keys(
    con: duckdb.DuckDBPyConnection, table: str, key: list[str]
) -> list[tuple[str, int]]:
    """``(key value, rows)`` of up to five key values of ``table`` held by more than one row."""
    query = read_statement("store/duplicate_keys.sql", table=quote_ident(table),
                           key=", ".join(quote_ident(c) for c in key))
    return [(str(v), int(n)) for v, n in con.execute(query).fetchall()]


def require_unique_keys(
    con: duckdb.DuckDBPyConnection, tables: list[str], *, file: str | None = None
) -> None:
    """Raise :class:`InputError` when a table of ``tables`` with an unenforced key holds a key
    value twice; run it inside the writing transaction, so the write rolls back."""
    keys = unenforced_keys(con)
    for table in tables:
        if table not in keys:
            continue
        dupes = duplicate_keys(con, table, keys[table])
        if dupes:
            shown = "; ".join(f"{v} ({n} rows)" for v, n in dupes)
            raise InputError(
                f"{table}: the write would give its key ({', '.join(keys[table])}) duplicate "
                f"values: {shown}",
                file=file, field=",".join(keys[table]),
            )
