"""Where ``search_logs`` reads log lines from: a :class:`LogStore` (docs/tools.md, "Log
start-up at scale").

A store answers three questions - which lines match a query (in file, then line order), the
earliest and latest timestamp, and which components and instances exist - so the tool never
holds every line itself. Two stores serve an ``incident/logs/`` dir:

- :class:`MemoryLogStore`: every line parsed into memory at start (small incidents);
- ``IndexedLogStore`` (rcaeval/tools/_logindex.py): a DuckDB index built once per set of log
  files and reused by every later start, so a case with a gigabyte of logs starts in
  milliseconds.

Both parse with :func:`parse_log_file`, so they serve the same lines with the same ids; a
live backend (a log service queried per call) implements the same protocol.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from rcaeval.bundle import BundleError, parse_time

LOG_RE = re.compile(r"^(\S+)\s+([A-Za-z]+)\s+\[([^\]]+)\]\s?(.*)$")
SAFE_ID = re.compile(r"[^A-Za-z0-9_.:-]+")
LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
_LEVEL_ALIASES = {"WARNING": "WARN", "ERR": "ERROR", "CRITICAL": "FATAL", "CRIT": "FATAL",
                  "PANIC": "FATAL", "NOTICE": "INFO"}
CHUNK_BYTES = 16 * 1024 * 1024
"""A log file is read in pieces of about this size, each cut after a newline."""
INDEX_MIN_BYTES = 32 * 1024 * 1024
"""Log dirs at least this large are served from an index (``RCAEVAL_LOG_INDEX_MIN_BYTES``)."""


def level_rank(level: str | None) -> int:
    """A level's place in :data:`LEVELS` (aliases folded in); -1 for none or unknown."""
    lvl = _LEVEL_ALIASES.get((level or "").upper(), (level or "").upper())
    return LEVELS.index(lvl) if lvl in LEVELS else -1


def record_time(value: Any) -> datetime | None:
    """A record's time stamp as an aware UTC datetime (:func:`rcaeval.bundle.parse_time`), or
    None when it is not one: how the incident tools read log, point, event and span stamps."""
    try:
        return parse_time(value, "ts")
    except BundleError:
        return None


@dataclass
class LogLine:
    id: str
    ts: str | None
    at: datetime | None
    level: str | None
    component: str | None
    instance: str
    message: str

    def entry(self, max_chars: int) -> dict[str, Any]:
        msg = self.message if len(self.message) <= max_chars else (
            self.message[:max_chars] + f"... [{len(self.message) - max_chars} chars cut]")
        return {"id": self.id, "ts": self.ts, "level": self.level, "component": self.component,
                "instance": self.instance, "message": msg}


@dataclass(frozen=True)
class LogQuery:
    """One ``search_logs`` filter, already validated: ``rx`` searched in the message,
    ``component`` lower-cased (compared case-insensitively), ``floor`` a :func:`level_rank`
    (-1: any level), ``start``/``end`` inclusive bounds on the line's time (a line without
    one never matches a bound)."""

    rx: re.Pattern[str] | None = None
    component: str | None = None
    instance: str | None = None
    floor: int = -1
    start: datetime | None = None
    end: datetime | None = None

    def holds(self, ln: LogLine) -> bool:
        return ((self.component is None or (ln.component or "").lower() == self.component)
                and (self.instance is None or ln.instance == self.instance)
                and (self.floor < 0 or level_rank(ln.level) >= self.floor)
                and (self.start is None or (ln.at is not None and ln.at >= self.start))
                and (self.end is None or (ln.at is not None and ln.at <= self.end))
                and (self.rx is None or self.rx.search(ln.message) is not None))


class LogStore(Protocol):
    """What ``search_logs`` needs of a log backend."""

    def search(self, q: LogQuery, offset: int, limit: int) -> tuple[list[LogLine], int]:
        """The matching lines ``offset .. offset+limit`` in order, and how many match."""

    def bounds(self) -> tuple[datetime | None, datetime | None]:
        """The first-seen earliest and latest line time (None: no line has one)."""

    def known(self) -> tuple[list[str], list[str]]:
        """The sorted component names and instance names."""

    def lines(self) -> Iterator[LogLine]:
        """Every line, in order."""

    def message(self, lid: str) -> str | None:
        """The message of the line with this id (:func:`line_id`; when two lines share an id,
        the later one), None when there is none."""

    def has_message(self, text: str) -> bool:
        """Whether some line's message is exactly ``text``."""

    def __len__(self) -> int: ...


def log_files(logs_dir: Path) -> list[Path]:
    """The ``*.log`` files of an incident's ``logs/`` dir, in the order they are served."""
    return sorted(logs_dir.glob("*.log")) if logs_dir.is_dir() else []


def _chunks(path: Path, chunk: int) -> Iterator[str]:
    """The file's text in pieces cut just after a newline byte (a newline ends any UTF-8
    sequence, so decoding piecewise replaces exactly what decoding the whole file would)."""
    with path.open("rb") as fh:
        rest = b""
        while block := fh.read(chunk):
            block = rest + block
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                rest = block
                continue
            rest = block[cut:]
            yield block[:cut].decode("utf-8", "replace")
        if rest:
            yield rest.decode("utf-8", "replace")


def parse_log_file(path: Path, chunk: int = CHUNK_BYTES) -> Iterator[
        tuple[int, str | None, datetime | None, str | None, str | None, str]]:
    """``(line number, ts, at, level, component, message)`` of every non-blank line: ``ts``
    is kept only when it parses, a line not in ``TS LEVEL [component] message`` form (or
    with an unparsable time) keeps its whole text as the message."""
    no = 0
    match = LOG_RE.match
    for text in _chunks(path, chunk):
        for line in text.splitlines():
            no += 1
            if not line.strip():
                continue
            m = match(line)
            ts, level, comp, msg = m.groups() if m else (None, None, None, line)
            at = record_time(ts) if ts else None
            yield (no, ts if at else None, at, level.upper() if level else None, comp,
                   msg if at or not m else line)


def line_id(id_stem: str, no: int) -> str:
    return f"L-{id_stem}-{no:05d}"


def parse_logs(files: list[Path]) -> Iterator[LogLine]:
    for path in files:
        stem = path.stem
        id_stem = SAFE_ID.sub("_", stem)
        for no, ts, at, level, comp, msg in parse_log_file(path):
            yield LogLine(id=line_id(id_stem, no), ts=ts, at=at, level=level, component=comp,
                          instance=stem, message=msg)


class MemoryLogStore:
    """Every line in a list, filtered per query."""

    def __init__(self, lines: list[LogLine]) -> None:
        self._lines = lines
        self._by_id: dict[str, str] | None = None
        self._messages: set[str] | None = None

    def search(self, q: LogQuery, offset: int, limit: int) -> tuple[list[LogLine], int]:
        hits = [ln for ln in self._lines if q.holds(ln)]
        return hits[offset:offset + limit], len(hits)

    def bounds(self) -> tuple[datetime | None, datetime | None]:
        stamps = [ln.at for ln in self._lines if ln.at is not None]
        return (min(stamps), max(stamps)) if stamps else (None, None)

    def known(self) -> tuple[list[str], list[str]]:
        return (sorted({ln.component for ln in self._lines if ln.component}),
                sorted({ln.instance for ln in self._lines}))

    def lines(self) -> Iterator[LogLine]:
        return iter(self._lines)

    def message(self, lid: str) -> str | None:
        if self._by_id is None:
            self._by_id = {ln.id: ln.message for ln in self._lines}
        return self._by_id.get(lid)

    def has_message(self, text: str) -> bool:
        if self._messages is None:
            self._messages = {ln.message for ln in self._lines}
        return text in self._messages

    def __len__(self) -> int:
        return len(self._lines)


def index_min_bytes() -> int:
    """``RCAEVAL_LOG_INDEX_MIN_BYTES`` (a whole number of bytes), else :data:`INDEX_MIN_BYTES`."""
    raw = os.environ.get("RCAEVAL_LOG_INDEX_MIN_BYTES", "").strip()
    if not raw:
        return INDEX_MIN_BYTES
    if not raw.isdigit():
        from rcaeval.errors import InputError

        raise InputError(f"RCAEVAL_LOG_INDEX_MIN_BYTES must be a whole number of bytes, got "
                         f"{raw!r}", field="RCAEVAL_LOG_INDEX_MIN_BYTES")
    return int(raw)


def open_log_store(logs_dir: Path, *, indexed: bool | None = None) -> LogStore:
    """The store for ``logs_dir``: indexed when ``indexed`` is True, or (None) when its log
    files hold at least :func:`index_min_bytes` bytes; else parsed into memory."""
    files = log_files(logs_dir)
    if indexed is None:
        indexed = bool(files) and sum(p.stat().st_size for p in files) >= index_min_bytes()
    if not indexed:
        return MemoryLogStore(list(parse_logs(files)))
    from rcaeval.tools._logindex import open_index

    return open_index(logs_dir, files)
