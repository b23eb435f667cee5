"""A store file that is truncated or corrupted: one clear message (exit 3) from every command
that opens a store, instead of a DuckDB traceback from wherever the damage is first read
(docs/store.md, "A damaged store")."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import duckdb

from rcaeval._inputs import describe_mode
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


_HEADER = slice(8, 12)
_MAGIC = b"DUCK"


def check_store_file(path: str | os.PathLike[str]) -> None:
    """Refuse an existing ``path`` that is not a DuckDB store file, before DuckDB opens it.

    A FIFO, device, socket or directory is refused without blocking; a regular file must
    carry DuckDB's header. DuckDB itself would open an existing JSON, CSV or Parquet file as
    an *in-memory* database with a view of it, so ``--db answers.json`` judged or imported
    into memory and lost every row with exit 0. A missing file is left to the caller (a
    read-write open creates it)."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise InputError("is a directory, expected a DuckDB store file", file=str(p),
                         field="--db") from None
    except OSError as exc:
        raise InputError(f"cannot open the store: {exc.strerror or exc}", file=str(p),
                         field="--db") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"is {describe_mode(mode)}, expected a DuckDB store file",
                             file=str(p), field="--db")
        head = os.pread(fd, _HEADER.stop, 0)
    except OSError as exc:
        raise InputError(f"cannot read the store: {exc.strerror or exc}", file=str(p),
                         field="--db") from None
    finally:
        os.close(fd)
    if head[_HEADER] != _MAGIC:
        what = "is empty" if not head else "has no DuckDB header"
        raise InputError(
            f"{what}, so it is not a DuckDB store file (another kind of file, or a store "
            "truncated to nothing); point --db / $RCAEVAL_DB at a store, or at a new path to "
            "create one", file=str(p), field="--db")
