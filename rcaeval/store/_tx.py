"""The store's one transaction helper and its one Arrow-registration helper.

Every multi-statement write (a migration, an extraction batch, a judging chunk's eval_* rows,
the rule tables, the semantic shadow) runs inside :func:`transaction`; :meth:`Store.transaction
<rcaeval.store.Store.transaction>` is the same helper. Nested uses on one connection join the
outermost transaction, so a caller may wrap several writers in one.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import duckdb

_DEPTH: dict[int, int] = {}
"""Open transaction depth per connection (``id``), entries only while one is open."""


def in_transaction(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether :func:`transaction` has a transaction open on ``con``."""
    return id(con) in _DEPTH


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """One transaction on ``con``: committed when the block ends, rolled back on any exception
    (the exception propagates). Inside another :func:`transaction` on the same connection the
    block joins it: the outermost one commits or rolls back."""
    key = id(con)
    if key in _DEPTH:
        _DEPTH[key] += 1
        try:
            yield con
        finally:
            _DEPTH[key] -= 1
        return
    con.execute("BEGIN TRANSACTION")
    _DEPTH[key] = 1
    try:
        yield con
    except BaseException:
        del _DEPTH[key]
        con.execute("ROLLBACK")
        raise
    del _DEPTH[key]
    con.execute("COMMIT")


@contextmanager
def registered(con: duckdb.DuckDBPyConnection,
               tables: Mapping[str, Any]) -> Iterator[duckdb.DuckDBPyConnection]:
    """``tables`` (Arrow tables, polars or pandas frames) registered on ``con`` under their
    names for the block, unregistered afterwards whatever happens."""
    done: list[str] = []
    try:
        for name, table in tables.items():
            con.register(name, table)
            done.append(name)
        yield con
    finally:
        for name in done:
            con.unregister(name)
