"""Quoting and catalog look-ups shared by the store modules."""

from __future__ import annotations

import duckdb


def quote_ident(name: str) -> str:
    """A DuckDB identifier, double-quoted (embedded quotes doubled)."""
    return '"' + name.replace('"', '""') + '"'


def base_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Base tables of the ``main`` schema, sorted by name (views excluded)."""
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() "
        "WHERE schema_name = 'main' AND NOT temporary ORDER BY table_name"
    ).fetchall()
    return [r[0] for r in rows]


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """``(column, type)`` of a main-schema table, in declaration order."""
    rows = con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() "
        "WHERE schema_name = 'main' AND table_name = ? ORDER BY column_index",
        [table],
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def primary_key(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """The primary-key columns of a main-schema table (empty when it has none)."""
    row = con.execute(
        "SELECT constraint_column_names FROM duckdb_constraints() "
        "WHERE schema_name = 'main' AND table_name = ? AND constraint_type = 'PRIMARY KEY'",
        [table],
    ).fetchone()
    return list(row[0]) if row else []
