"""Quoting and catalog look-ups shared by the store modules."""

from __future__ import annotations

import duckdb

from rcaeval._paths import read_statement


def quote_ident(name: str) -> str:
    """A DuckDB identifier, double-quoted (embedded quotes doubled)."""
    return '"' + name.replace('"', '""') + '"'


def base_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Base tables of the ``main`` schema, sorted by name (views excluded)."""
    rows = con.execute(read_statement("store/catalog_tables.sql")).fetchall()
    return [r[0] for r in rows]


def table_columns(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[str, str]]:
    """``(column, type)`` of a main-schema table, in declaration order."""
    rows = con.execute(read_statement("store/catalog_columns.sql"), [table]).fetchall()
    return [(r[0], r[1]) for r in rows]


def primary_key(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """The primary-key columns of a main-schema table (empty when it has none)."""
    row = con.execute(read_statement("store/catalog_primary_key.sql"), [table]).fetchone()
    return list(row[0]) if row else []
