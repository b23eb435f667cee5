"""Opening a store: path resolution, the UTC session, DuckDB memory/threads, migration of
older stores."""

from __future__ import annotations

import contextlib
import functools
import math
import os
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb

from rcaeval._paths import default_db_path, read_query
from rcaeval.errors import InputError, NotFoundError
from rcaeval.store._damage import check_store_file, note_opened
from rcaeval.store._migrations import (
    applied_migrations,
    apply_migration,
    discover_migrations,
    ensure_migrations_table,
    plan_migrations,
)
from rcaeval.store._store import Store

MEMORY = ":memory:"
MEMORY_LIMIT_ENV = "RCAEVAL_DB_MEMORY_LIMIT"
"""Environment variable: DuckDB ``memory_limit`` for every store opened without an explicit
``memory_limit`` (e.g. ``2GB``, ``512MiB``, ``50%``)."""
THREADS_ENV = "RCAEVAL_DB_THREADS"
"""Environment variable: DuckDB ``threads`` for every store opened without explicit
``threads``."""


LOCK_TIMEOUT_ENV = "RCAEVAL_DB_LOCK_TIMEOUT"
"""Environment variable: seconds to wait for a store another process has locked (default
:data:`DEFAULT_LOCK_TIMEOUT_S`)."""
DEFAULT_LOCK_TIMEOUT_S = 60.0
READERS_DIR_SUFFIX = ".readers"
"""``<store>.readers/``: one file per reader waiting for the lock; a writer about to take the
lock lets them in first (see docs/store.md "Concurrency")."""
WRITER_YIELD_S = 5.0


def resolve_lock_timeout(lock_timeout: float | None = None) -> float:
    """``lock_timeout``, else ``$RCAEVAL_DB_LOCK_TIMEOUT``, else 60 s (0: do not wait)."""
    if lock_timeout is not None:
        value: float | str = lock_timeout
    else:
        value = (os.environ.get(LOCK_TIMEOUT_ENV) or "").strip() or DEFAULT_LOCK_TIMEOUT_S
    try:
        seconds = float(value)
    except ValueError:
        raise InputError(f"${LOCK_TIMEOUT_ENV} must be a number of seconds, got {value!r}",
                         field="lock_timeout") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise InputError(f"lock timeout must be a non-negative number of seconds, got {value!r}",
                         field="lock_timeout")
    return seconds


def _is_lock_conflict(exc: BaseException) -> bool:
    text = str(exc)
    return "Conflicting lock" in text or "Could not set lock" in text


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _waiting_readers(path: Path) -> list[Path]:
    folder = path.with_name(path.name + READERS_DIR_SUFFIX)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    live = []
    for name in names:
        marker = folder / name
        try:
            pid = int(name.split(".", 1)[0])
        except ValueError:
            continue
        if _pid_alive(pid):
            live.append(marker)
        else:
            with contextlib.suppress(OSError):
                marker.unlink()
    return live


def yield_to_readers(path: Path, max_wait_s: float = WRITER_YIELD_S) -> None:
    """A writer about to lock ``path`` first waits (bounded) for the readers queued on it."""
    deadline = time.monotonic() + max_wait_s
    while _waiting_readers(path) and time.monotonic() < deadline:
        time.sleep(0.01)


@contextlib.contextmanager
def _queued_reader(path: Path) -> Iterator[None]:
    folder = path.with_name(path.name + READERS_DIR_SUFFIX)
    marker = folder / f"{os.getpid()}.{threading.get_ident()}.{secrets.token_hex(3)}"
    try:
        folder.mkdir(exist_ok=True)
        marker.touch()
    except OSError:
        marker = None  # a read-only directory: wait without announcing ourselves
    try:
        yield
    finally:
        if marker is not None:
            with contextlib.suppress(OSError):
                marker.unlink()
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when no other reader is queued


def _connect_waiting(path: Path, *, read_only: bool, lock_timeout: float,
                     on_wait: Callable[[str], None] | None = None) -> duckdb.DuckDBPyConnection:
    """``duckdb.connect`` that waits while another process holds the file's lock: retries
    with backoff up to ``lock_timeout`` seconds, then a clear :class:`InputError`."""
    if not read_only:
        yield_to_readers(path)
    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        if not _is_lock_conflict(exc) or lock_timeout <= 0:
            raise
        first = exc
    if on_wait is not None:
        on_wait(str(first))
    deadline = time.monotonic() + lock_timeout
    pause = 0.005
    with contextlib.ExitStack() as stack:
        if read_only:
            stack.enter_context(_queued_reader(path))
        while True:
            time.sleep(pause)
            pause = min(pause * 2, 0.1)
            try:
                return duckdb.connect(str(path), read_only=read_only)
            except duckdb.Error as exc:
                if not _is_lock_conflict(exc):
                    raise
                first = exc
            if time.monotonic() >= deadline:
                break
    holder = str(first).split("Conflicting lock is held in", 1)[-1].split(". See")[0].strip()
    raise InputError(
        f"the store is locked by another process ({holder}) and stayed locked for "
        f"{lock_timeout:g}s; a writer (rcaeval run/judge) holds it only while it commits, so "
        f"this is a long write or a session holding a read-write connection. Retry, raise "
        f"${LOCK_TIMEOUT_ENV}, or close that session", file=str(path)) from first


def resolve_db_path(path: str | Path | None = None) -> Path | None:
    """The store file ``path`` names (``None``: ``$RCAEVAL_DB`` or the default), or ``None``
    for an in-memory store (``":memory:"``)."""
    if path is None:
        return default_db_path().expanduser()
    if str(path) == MEMORY:
        return None
    return Path(path).expanduser()


def resolve_memory_limit(memory_limit: str | None = None) -> str | None:
    """``memory_limit``, else ``$RCAEVAL_DB_MEMORY_LIMIT``, else ``None`` (DuckDB's default:
    80% of RAM). Blank values count as unset."""
    value = memory_limit if memory_limit is not None else os.environ.get(MEMORY_LIMIT_ENV)
    value = value.strip() if value is not None else None
    return value or None


def resolve_threads(threads: int | None = None) -> int | None:
    """``threads``, else ``$RCAEVAL_DB_THREADS``, else ``None`` (DuckDB's default: one per
    CPU)."""
    if threads is not None:
        value: int | str = threads
        source = "threads"
    else:
        env = (os.environ.get(THREADS_ENV) or "").strip()
        if not env:
            return None
        value, source = env, f"${THREADS_ENV}"
    try:
        n = int(value)
    except ValueError:
        raise InputError(f"{source} must be a positive integer, got {value!r}",
                         field="threads") from None
    if n < 1:
        raise InputError(f"{source} must be a positive integer, got {value!r}", field="threads")
    return n


_PRINTED_LIMIT = re.compile(r"^(\d+(?:\.\d+)?) ?([KMGTP]i?B)$")


def _reset_value(printed: str) -> str:
    """The value to set the limit back to: DuckDB prints it rounded down to a tenth of its
    unit (1GB prints as ``953.6 MiB``), so setting the printed value back would lower it a
    little on every call; half a tenth more prints the same and stays put."""
    m = _PRINTED_LIMIT.match(printed.strip())
    return f"{float(m.group(1)) + 0.05:.2f} {m.group(2)}" if m else printed


_UNIT_BYTES = {"KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
               "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}


def _limit_bytes(printed: str) -> float | None:
    """The bytes of a memory limit as DuckDB prints it (``953.6 MiB``); None if unreadable."""
    m = _PRINTED_LIMIT.match(printed.strip())
    return float(m.group(1)) * _UNIT_BYTES[m.group(2)] if m else None


MIB = 2**20
RELEASE_TARGET = 64 * MIB
"""The memory limit (bytes) :func:`release_cache` lowers DuckDB's to for a moment."""
CHECKPOINT_MEMORY_PER_THREAD = 64 * MIB
"""What :func:`checkpoint` lets DuckDB hold per thread while it checkpoints (at least
:data:`CHECKPOINT_MEMORY_MIN`): DuckDB checkpoints row groups in parallel, each pinning its
columns' blocks, and a checkpoint that cannot pin a block invalidates the database."""
CHECKPOINT_MEMORY_MIN = 256 * MIB
"""The least memory limit :func:`checkpoint` runs a checkpoint under."""


@contextlib.contextmanager
def _memory_lowered(con: duckdb.DuckDBPyConnection, target: int) -> Iterator[None]:
    """DuckDB's memory limit lowered to ``target`` bytes for the block, then set back. Only
    on a file store whose limit is higher (an in-memory store's tables are buffer-pool
    blocks: a lower limit would spill the store itself). Best effort: when DuckDB cannot
    evict enough to meet ``target``, the limit stays as it was."""
    printed, file_backed = con.execute(
        read_query("store/current_memory_limit.sql")).fetchall()[0]
    current = _limit_bytes(printed)
    if not file_backed or current is None or current <= target:
        yield
        return
    try:
        con.execute(read_query("store/memory_limit.sql"), {"limit": f"{target // MIB}MiB"})
    except duckdb.Error:
        pass
    try:
        yield
    finally:
        con.execute(read_query("store/memory_limit.sql"), {"limit": _reset_value(printed)})


@contextlib.contextmanager
def threads_lowered(con: duckdb.DuckDBPyConnection, threads: int = 1) -> Iterator[None]:
    """DuckDB's worker threads set to ``threads`` for the block, then set back (only when the
    instance has more). For statements whose cost is fixed per query rather than per row:
    DuckDB compiles a constant RE2 pattern again in each thread's state of every operator that
    evaluates it, so on small inputs a second thread mostly compiles the same regexes twice
    (the judge's output detectors, docs/judge.md "SQL stages"). Instance-wide, like every
    DuckDB setting: other connections of the process share the lowered count meanwhile."""
    (current,) = con.execute(read_query("store/current_threads.sql")).fetchall()[0]
    if int(current) <= threads:
        yield
        return
    con.execute(read_query("store/threads.sql"), {"threads": threads})
    try:
        yield
    finally:
        con.execute(read_query("store/threads.sql"), {"threads": int(current)})


def release_cache(con: duckdb.DuckDBPyConnection) -> None:
    """Give back the memory DuckDB keeps for blocks it no longer needs: lower the instance's
    memory limit to :data:`RELEASE_TARGET` for a moment (DuckDB evicts unpinned blocks to
    meet it) and set it back. Best effort: if that much cannot be freed, nothing changes.
    Does nothing on an in-memory database, whose tables are themselves buffer-pool blocks.

    DuckDB keeps every block it wrote or read cached up to ``memory_limit``; a long judge or
    extraction would otherwise grow towards the limit as the store grows, although each
    chunk needs only its own rows (docs/store.md, "Memory and threads")."""
    with _memory_lowered(con, RELEASE_TARGET):
        pass


DEFERRED_CHECKPOINT_THRESHOLD = "1GiB"
"""DuckDB's ``checkpoint_threshold`` inside :func:`checkpoints_deferred`: above what one
judging chunk writes, so commits do not checkpoint and :func:`checkpoint` decides when."""


def wal_bytes(con: duckdb.DuckDBPyConnection) -> int:
    """The size of the current database's write-ahead log (0 for an in-memory database or
    when there is none)."""
    rows = con.execute(read_query("store/database_path.sql")).fetchall()
    if not rows or not rows[0][0]:
        return 0
    try:
        return os.stat(f"{rows[0][0]}.wal").st_size
    except OSError:
        return 0


def checkpoint_memory(con: duckdb.DuckDBPyConnection) -> int:
    """The memory limit (bytes) :func:`checkpoint` runs under: :data:`CHECKPOINT_MEMORY_MIN`,
    or :data:`CHECKPOINT_MEMORY_PER_THREAD` per DuckDB thread if that is more."""
    (threads,) = con.execute(read_query("store/current_threads.sql")).fetchall()[0]
    return max(CHECKPOINT_MEMORY_MIN, CHECKPOINT_MEMORY_PER_THREAD * int(threads))


def checkpoint(con: duckdb.DuckDBPyConnection, *, wal_over: int = 0) -> None:
    """Write DuckDB's write-ahead log into the database file now (queries/store/checkpoint.sql)
    if it holds more than ``wal_over`` bytes, under a memory limit of
    :func:`checkpoint_memory` (docs/store.md, "Checkpoints"). Best effort: if DuckDB cannot
    checkpoint now (another transaction is open), the log is checkpointed later, as DuckDB
    would have.

    A checkpoint's vacuum merges the small row groups that commits appended (one per judging
    chunk and table) and builds the merged one in memory: for ``eval_judgment``, whose
    ``judgment_json`` is ~21 KB a case run, a merge of 64 chunks' rows took ~1 GB, growing
    with the store. Under a lower limit DuckDB writes what it builds to ``<store>.tmp/``
    instead of holding it."""
    if wal_over and wal_bytes(con) <= wal_over:
        return
    with _memory_lowered(con, checkpoint_memory(con)):
        try:
            con.execute(read_query("store/checkpoint.sql"))
        except duckdb.Error:
            pass


@contextlib.contextmanager
def checkpoints_deferred(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Within the block, commits do not checkpoint on their own (the threshold is raised to
    :data:`DEFERRED_CHECKPOINT_THRESHOLD`): the caller checkpoints with :func:`checkpoint` when
    it holds the least memory. The threshold is set back afterwards, and the log checkpointed.

    A checkpoint re-compresses the row groups that commits appended to; at DuckDB's default
    threshold (16 MiB) every judging chunk's commit checkpointed while the chunk's tables and
    frames were still held, and the two together made the judge's memory peak."""
    (previous,) = con.execute(read_query("store/current_checkpoint_threshold.sql")).fetchall()[0]
    con.execute(read_query("store/checkpoint_threshold.sql"),
                {"threshold": DEFERRED_CHECKPOINT_THRESHOLD})
    try:
        yield
    finally:
        try:  # best effort, so that an error raised in the block is the one reported
            con.execute(read_query("store/checkpoint_threshold.sql"),
                        {"threshold": _reset_value(previous)})
        except duckdb.Error:
            pass
        checkpoint(con)


def pin_utc(con: duckdb.DuckDBPyConnection) -> None:
    """``SET TimeZone = 'UTC'`` on ``con`` (``queries/store/timezone_utc.sql``): what every
    connection rcaeval opens, or is handed, runs first, so timestamps do not depend on the
    machine's zone."""
    con.execute(read_query("store/timezone_utc.sql"))


def apply_resource_settings(
    con: duckdb.DuckDBPyConnection, *, memory_limit: str | None, threads: int | None
) -> None:
    """``SET memory_limit`` / ``SET threads`` on ``con`` (DuckDB applies both to the whole
    database instance). ``None`` leaves DuckDB's setting alone."""
    if memory_limit is not None:
        try:
            con.execute(read_query("store/memory_limit.sql"), {"limit": memory_limit})
        except duckdb.Error as exc:
            raise InputError(f"invalid memory limit {memory_limit!r}: {exc}",
                             field="memory_limit") from exc
    if threads is not None:
        try:
            con.execute(read_query("store/threads.sql"), {"threads": threads})
        except duckdb.Error as exc:
            raise InputError(f"invalid thread count {threads!r}: {exc}",
                             field="threads") from exc


def open_connection(
    path: Path | None,
    *,
    read_only: bool,
    memory_limit: str | None = None,
    threads: int | None = None,
    lock_timeout: float | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with ``TimeZone`` pinned to UTC and, when given, ``memory_limit``
    and ``threads`` set (already resolved: see :func:`resolve_memory_limit`). While another
    process holds the file's lock it waits up to ``lock_timeout`` (resolved by
    :func:`resolve_lock_timeout`); ``on_wait`` is told once when it starts waiting."""
    if path is None:
        if read_only:
            raise InputError("an in-memory store cannot be opened read-only", file=MEMORY)
        con = duckdb.connect(MEMORY)
    else:
        check_store_file(path)  # a FIFO never blocks; a JSON/CSV file is not opened in memory
        if read_only and not path.exists():
            raise NotFoundError(f"no store at {path}; create it with `rcaeval db init`")
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        note_opened(str(path))
        try:
            con = _connect_waiting(path, read_only=read_only,
                                   lock_timeout=resolve_lock_timeout(lock_timeout),
                                   on_wait=on_wait)
        except duckdb.Error as exc:  # not a DuckDB file, ...
            raise InputError(f"cannot open the store: {exc}", file=str(path)) from exc
    try:
        pin_utc(con)
        apply_resource_settings(con, memory_limit=memory_limit, threads=threads)
    except BaseException:
        con.close()
        raise
    return con


def connect(
    path: str | Path | None = None,
    *,
    read_only: bool = False,
    migrate: bool = True,
    migrations_dir: str | Path | None = None,
    allow_checksum_mismatch: bool = False,
    memory_limit: str | None = None,
    threads: int | None = None,
    lock_timeout: float | None = None,
    release_after_use: bool | None = None,
) -> Store:
    """Open (creating if needed) the rcaeval store and bring its schema up to date.

    Concurrency (docs/store.md "Concurrency"): while another process holds the file's lock,
    opening waits up to ``lock_timeout`` seconds (default ``$RCAEVAL_DB_LOCK_TIMEOUT``, else
    60). ``release_after_use`` (default: ``read_only``) closes the DuckDB connection after
    every frame method / :meth:`Store.sql` call and reopens it on the next, so an analysis
    session never keeps other processes out; :meth:`Store.release` does it by hand.

    ``path``: a file (parent dirs are created), ``":memory:"``, or ``None`` for
    ``$RCAEVAL_DB`` / ``<data>/rcaeval.duckdb``. Every pending ``NNNN_name.sql`` of
    ``migrations_dir`` (default: the package's ``queries/migrations``) is applied in version
    order, each in its own transaction, unless ``migrate=False``.

    ``memory_limit`` (a DuckDB size: ``"2GB"``, ``"512MiB"``, ``"50%"``; default
    ``$RCAEVAL_DB_MEMORY_LIMIT``, else DuckDB's 80% of RAM) caps DuckDB's buffer pool, which
    otherwise keeps every table block it has read or written cached up to that limit; beyond it
    DuckDB evicts clean blocks and spills operators to ``<store>.tmp``. ``threads`` (default
    ``$RCAEVAL_DB_THREADS``, else one per CPU) sets DuckDB's worker threads. Both apply to the
    whole database instance (every connection to the same file in this process).

    Raises :class:`InputError` for an invalid ``memory_limit`` / ``threads``, when the store
    was created by a newer rcaeval, when an applied
    migration file was edited (unless ``allow_checksum_mismatch``), or when a read-only open
    finds pending migrations; :class:`NotFoundError` for a read-only open of a missing file.
    """
    db_path = resolve_db_path(path)
    mig_dir = Path(migrations_dir) if migrations_dir is not None else None
    known = discover_migrations(mig_dir)
    limit = resolve_memory_limit(memory_limit)
    n_threads = resolve_threads(threads)
    wait_s = resolve_lock_timeout(lock_timeout)
    con = open_connection(db_path, read_only=read_only, memory_limit=limit, threads=n_threads,
                          lock_timeout=wait_s)
    label = str(db_path) if db_path is not None else MEMORY
    applied_now = []
    try:
        pending = plan_migrations(
            label, known, applied_migrations(con), allow_checksum_mismatch=allow_checksum_mismatch
        )
        if pending and migrate:
            if read_only:
                names = ", ".join(m.filename for m in pending)
                raise InputError(
                    f"the store needs migrations ({names}) and was opened read-only; open it "
                    "read-write once (`rcaeval db migrate`)",
                    file=label,
                )
            ensure_migrations_table(con)
            for mig in pending:
                apply_migration(con, mig, label)
                applied_now.append(mig)
    except BaseException:
        con.close()
        raise
    return Store(
        con,
        db_path,
        read_only=read_only,
        migrations_dir=mig_dir,
        applied_now=applied_now,
        allow_checksum_mismatch=allow_checksum_mismatch,
        reopen=None if db_path is None else functools.partial(
            open_connection, db_path, read_only=read_only, memory_limit=limit,
            threads=n_threads, lock_timeout=wait_s),
        release_after_use=read_only if release_after_use is None else release_after_use,
    )
