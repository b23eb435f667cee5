"""The log index: an incident's ``logs/*.log`` lines in a DuckDB file, built once per set of
log files and reused by every later tool server start (docs/tools.md, "Log start-up at
scale").

The index lives in the cache dir (``$RCAEVAL_CACHE_DIR``, else ``$XDG_CACHE_HOME/rcaeval``,
else ``~/.cache/rcaeval``) under ``log-index/``, named by a SHA-256 of the files' names and
bytes, so a copy of the same incident (a run's workspace) finds the index its registry case
built. A start first looks the files up by path, size, modification time and inode (no
hashing); only files never seen there are hashed, and only content never indexed is parsed.
The index is written to a temporary file and renamed, under a lock, so concurrent starts
build it once and never read half of one.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from rcaeval._paths import read_query, read_statement
from rcaeval.bundle import parse_time
from rcaeval.tools._logstore import (
    SAFE_ID,
    LogLine,
    LogQuery,
    level_rank,
    line_id,
    parse_log_file,
)

if TYPE_CHECKING:
    import duckdb

FORMAT = 1
"""Bumped whenever what the index holds or how lines are parsed changes."""
BATCH = 250_000
SCAN = 500_000
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_LINE_ID = re.compile(r"^L-(.*)-([0-9]+)$")


def cache_root() -> Path:
    env = os.environ.get("RCAEVAL_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "rcaeval"


def _index_dir() -> Path:
    root = cache_root() / "log-index"
    try:
        root.mkdir(parents=True, exist_ok=True)
        probe = root / f".probe.{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        return root
    except OSError:  # a read-only home (a sandbox): a private dir for this process
        tmp = Path(tempfile.mkdtemp(prefix="rcaeval-log-index-"))
        atexit.register(shutil.rmtree, tmp, True)
        return tmp


def _digest(doc: Any) -> str:
    return hashlib.sha256(orjson.dumps(doc)).hexdigest()


def _content_key(files: list[Path]) -> str:
    parts: list[Any] = [FORMAT]
    for path in files:
        h = hashlib.sha256()
        with path.open("rb") as fh:
            while block := fh.read(1 << 22):
                h.update(block)
        parts.append([path.name, path.stat().st_size, h.hexdigest()])
    return _digest(parts)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def open_index(logs_dir: Path, files: list[Path]) -> IndexedLogStore:
    """The index of ``files`` (``logs_dir``'s ``*.log``), built if no start built it yet."""
    root = _index_dir()
    stats = [[p.name, st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev]
             for p in files for st in [p.stat()]]
    memo = root / f"{_digest([FORMAT, str(logs_dir.resolve()), stats])}.key"
    key = memo.read_text().strip() if memo.is_file() else ""
    db = root / f"{key}.duckdb"
    if not key or not db.is_file():
        key = _content_key(files)
        db = root / f"{key}.duckdb"
        if not db.is_file():
            with (root / f"{key}.lock").open("w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not db.is_file():
                    build_index(files, db)
        _write_atomic(memo, key.encode())
    import duckdb

    try:
        return IndexedLogStore(db)
    except (duckdb.Error, ValueError, TypeError):  # unreadable (a full disk), other format
        with (root / f"{key}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            db.unlink(missing_ok=True)
            build_index(files, db)
        return IndexedLogStore(db)


def _flush(con: duckdb.DuckDBPyConnection, cols: list[list[Any]]) -> None:
    import pyarrow as pa

    names = ("seq", "file_no", "line_no", "ts", "at_us", "level", "level_rank", "component",
             "component_lc", "message")
    types = (pa.int64(), pa.int32(), pa.int32(), pa.string(), pa.int64(), pa.string(),
             pa.int8(), pa.string(), pa.string(), pa.string())
    batch = pa.table([pa.array(c, type=t) for c, t in zip(cols, types, strict=True)],
                     names=list(names))
    con.register("log_batch", batch)
    con.execute(read_statement("tools/log_index_insert.sql"))
    con.unregister("log_batch")
    for c in cols:
        c.clear()


def build_index(files: list[Path], db: Path) -> None:
    """Parse ``files`` once into a new index at ``db`` (written beside it, then renamed)."""
    import duckdb

    tmp = db.with_name(f".{db.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        con = duckdb.connect(str(tmp))
        try:
            con.execute(read_query("tools/log_index_schema.sql"))
            cols: list[list[Any]] = [[] for _ in range(10)]
            seq = 0
            for file_no, path in enumerate(files):
                con.execute(read_statement("tools/log_index_file.sql"),
                            [file_no, path.stem, SAFE_ID.sub("_", path.stem)])
                for no, ts, at, level, comp, msg in parse_log_file(path):
                    for col, v in zip(cols, (
                            seq, file_no, no, ts, None if at is None else (at - _EPOCH) // _US,
                            level, level_rank(level), comp, (comp or "").lower(), msg),
                            strict=True):
                        col.append(v)
                    seq += 1
                    if len(cols[0]) >= BATCH:
                        _flush(con, cols)
            if cols[0]:
                _flush(con, cols)
            con.execute(read_statement("tools/log_index_meta.sql"), [FORMAT])
        finally:
            con.close()
        os.replace(tmp, db)
    finally:
        tmp.unlink(missing_ok=True)


def _us(dt: datetime | None) -> int | None:
    return None if dt is None else (dt - _EPOCH) // _US


class IndexedLogStore:
    """A :class:`rcaeval.tools._logstore.LogStore` over one index file (read-only)."""

    def __init__(self, db: Path) -> None:
        import duckdb

        self.path = db
        self._con = duckdb.connect(str(db), read_only=True)
        fmt, self._n, first, last = self._con.execute(
            read_statement("tools/log_meta.sql")).fetchone()
        if fmt != FORMAT:
            raise ValueError(f"log index {db} has format {fmt}, not {FORMAT}")
        self._bounds = (parse_time(first, "ts") if first else None,
                        parse_time(last, "ts") if last else None)
        self._files = {no: (inst, stem) for no, inst, stem in self._con.execute(
            read_statement("tools/log_files.sql")).fetchall()}
        self._by_instance = {inst: no for no, (inst, _) in self._files.items()}

    def _line(self, row: tuple[Any, ...]) -> LogLine:
        _seq, file_no, no, ts, level, comp, msg = row
        inst, stem = self._files[file_no]
        return LogLine(id=line_id(stem, no), ts=ts, at=parse_time(ts, "ts") if ts else None,
                       level=level, component=comp, instance=inst, message=msg)

    def _args(self, q: LogQuery) -> list[Any] | None:
        fno = None
        if q.instance is not None:
            fno = self._by_instance.get(q.instance)
            if fno is None:
                return None
        return [q.component, fno, q.floor, _us(q.start), _us(q.end)]

    def search(self, q: LogQuery, offset: int, limit: int) -> tuple[list[LogLine], int]:
        args = self._args(q)
        if args is None:
            return [], 0
        con = self._con
        if q.rx is None:
            total = con.execute(read_statement("tools/log_count.sql"), args).fetchone()[0]
            rows = con.execute(read_statement("tools/log_page.sql"),
                               [*args, limit, offset]).fetchall()
            return [self._line(r) for r in rows], total
        search, want, total = q.rx.search, [], 0
        scan = read_statement("tools/log_scan.sql")
        for lo in range(0, self._n, SCAN):
            res = con.sql(scan, params=[*args, lo, lo + SCAN]).to_arrow_table()
            seqs, msgs = res.column(0).to_pylist(), res.column(1).to_pylist()
            for s, m in zip(seqs, msgs, strict=True):
                if search(m) is not None:
                    if offset <= total < offset + limit:
                        want.append(s)
                    total += 1
        if not want:
            return [], total
        rows = con.execute(read_statement("tools/log_rows.sql"),
                           [want[0], want[-1] + 1, want]).fetchall()
        return [self._line(r) for r in rows], total

    def bounds(self) -> tuple[datetime | None, datetime | None]:
        return self._bounds

    def known(self) -> tuple[list[str], list[str]]:
        comps = self._con.execute(read_statement("tools/log_components.sql")).fetchall()
        nos = self._con.execute(read_statement("tools/log_instances.sql")).fetchall()
        return (sorted(c for (c,) in comps if c), sorted(self._files[n][0] for (n,) in nos))

    def message(self, lid: str) -> str | None:
        m = _LINE_ID.match(lid)
        if m is None or line_id(m.group(1), int(m.group(2))) != lid:
            return None
        nos = [no for no, (_, stem) in self._files.items() if stem == m.group(1)]
        if not nos:
            return None
        row = self._con.execute(read_statement("tools/log_message.sql"),
                                [nos, int(m.group(2))]).fetchone()
        return None if row is None else row[0]

    def has_message(self, text: str) -> bool:
        row = self._con.execute(read_statement("tools/log_has_message.sql"), [text]).fetchone()
        return bool(row[0])

    def lines(self) -> Iterator[LogLine]:
        stmt = read_statement("tools/log_rows.sql")
        for lo in range(0, self._n, SCAN):
            for row in self._con.execute(stmt, [lo, lo + SCAN, None]).fetchall():
                yield self._line(row)

    def __len__(self) -> int:
        return int(self._n)
