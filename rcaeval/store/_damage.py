"""A store file that is truncated or corrupted: one clear message (exit 3) from every command
that opens a store, instead of a DuckDB traceback from wherever the damage is first read
(docs/store.md, "A damaged store")."""

from __future__ import annotations

import re

import duckdb

from rcaeval.errors import InputError

_DAMAGE = re.compile(r"Could not read enough bytes|Corrupt database file|checksum|"
                     r"not a valid DuckDB database|Failed to deserialize|"
                     r"block (?:id|at location)|database file .* is truncated", re.IGNORECASE)
_FILE = re.compile(r'file "([^"]+)"')


_opened: list[str] = []


def note_opened(path: str) -> None:
    """Remember the store file this process opened last (named when DuckDB's message
    does not name it)."""
    _opened[:] = [path]


def damaged_store(exc: BaseException, db_path: str | None = None) -> InputError | None:
    """An :class:`InputError` naming the store when ``exc`` (or what caused it) is DuckDB
    reporting a truncated or corrupted database file, else ``None``."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, duckdb.Error) and _DAMAGE.search(str(cur)):
            found = _FILE.search(str(cur))
            where = found.group(1) if found else db_path or (_opened[0] if _opened else None)
            first = str(cur).splitlines()[0][:300]
            return InputError(
                f"the store is damaged (truncated or corrupted), so it cannot be read: {first}. "
                "Restore it from a copy, or point --db / $RCAEVAL_DB at another store "
                "(a run's audit dirs can be judged again into a new one with `rcaeval judge`)",
                file=where or "the store")
        cur = cur.__cause__ or cur.__context__
    return None
