"""Reading the public corpora's telemetry CSV files into per-window incident records
(docs/import.md, "Public corpora").

One pass over a file serves every case window that reads it: each row's timestamp is placed
in the windows it falls in (rows outside every window are skipped without being parsed
further), and only those rows are parsed. A file's kind is known from its header:

- **long metrics** (``timestamp,cmdb_id,kpi_name,value``; Telecom's
  ``itemid,name,bomc_id,timestamp,value,cmdb_id``): one series per KPI and ``cmdb_id``;
- **wide metrics** (``timestamp,rr,sr,cnt,mrt,tc``, ``service,timestamp,rr,...``,
  ``serviceName,startTime,avg_time,...``, RCAEval's ``time,<service>_<metric>,...``): one
  series per numeric column (and entity, when the file has an entity column);
- **logs** (``log_id,timestamp,cmdb_id,log_name,value``; RCAEval's
  ``time,timestamp,container_name,message,level,...``): one incident log file per
  ``cmdb_id`` / container;
- **traces** (OpenRCA's three ``trace_span.csv`` layouts, RCAEval's ``traces.csv``): spans.

Timestamps are Unix epochs in seconds, milliseconds, microseconds or nanoseconds (told apart
by magnitude) or ISO-8601; anything else is an "unknown timestamp format" error naming the
file and the line.
"""

from __future__ import annotations

import bisect
import csv
import math
import os
import re
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from rcaeval._inputs import csv_rows
from rcaeval.corpora._write import iso, log_line

csv.field_size_limit(min(sys.maxsize, 1 << 28))

TS_COLUMNS = ("timestamp", "starttime", "time")
ENTITY_COLUMNS = ("cmdb_id", "tc", "service", "servicename")
_ERROR_WORDS = re.compile(r"\b(?:error|exception|fatal|fail(?:ed|ure)?|panic|refused|"
                          r"timed? ?out)\b", re.IGNORECASE)
_WARN_WORDS = re.compile(r"\bwarn(?:ing)?\b", re.IGNORECASE)


class RowError(Exception):
    """A bad source row: the message, the file and the 1-based line (None: the whole file,
    e.g. one that is not a regular file)."""

    def __init__(self, message: str, path: Path, line: int | None) -> None:
        self.message, self.path, self.line = message, path, line
        super().__init__(f"{self.where(str(path))}: {message}")

    def where(self, name: str, sep: str = ":") -> str:
        """``name`` with the line (``metrics.csv:12``, or ``metrics.csv line 12`` with
        ``sep=" line "``), or ``name`` alone when the error is the whole file's."""
        return name if self.line is None else f"{name}{sep}{self.line}"


MAX_EPOCH_S = 253402128000.0
"""9999-12-30T00:00:00Z: the last epoch second every date conversion (UTC, UTC+8) can show."""


def epoch_seconds(text: str) -> float | None:
    """A timestamp cell as epoch seconds, or None when it is no known format or no date
    between 1970 and 9999 (a cell of 40 nines is not a time)."""
    s = text.strip()
    try:
        v = float(s)
    except ValueError:
        try:
            dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
        except ValueError:
            return None
        if dt.tzinfo is None:
            return None
        try:
            v = dt.timestamp()
        except (OverflowError, ValueError, OSError):
            return None
        return v if 0 <= v <= MAX_EPOCH_S else None
    if not math.isfinite(v) or v < 0:
        return None
    if v >= 1e17:
        v = v / 1e9
    elif v >= 1e14:
        v = v / 1e6
    elif v >= 1e11:
        v = v / 1e3
    return v if v <= MAX_EPOCH_S else None


def open_source(path: Path) -> IO[str]:
    """``path`` opened as CSV text (undecodable bytes replaced), never blocking: a FIFO,
    device, socket or directory - or a file that cannot be opened - is a :class:`RowError`
    of the whole file."""
    from rcaeval._inputs import describe_mode

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
                     | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise RowError(f"cannot read: {exc.strerror or exc}", path, None) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise RowError(f"is {describe_mode(mode)}, expected a regular file", path, None)
        return os.fdopen(fd, newline="", encoding="utf-8", errors="replace")
    except BaseException:
        os.close(fd)
        raise


def level_of(message: str, given: str | None = None) -> str:
    """A log line's level: the source's own when it has one, else ERROR / WARN / INFO by
    the words of the message."""
    if given and given.strip():
        return given.strip().upper()
    if _ERROR_WORDS.search(message):
        return "ERROR"
    if _WARN_WORDS.search(message):
        return "WARN"
    return "INFO"


@dataclass
class Window:
    """One case's slice of the telemetry: [start, end) in epoch seconds."""

    key: int
    start: float
    end: float
    points: dict[tuple[str, tuple[tuple[str, str], ...]], list[tuple[float, float]]] = field(
        default_factory=dict)
    logs: dict[str, list[tuple[float, str]]] = field(default_factory=dict)
    spans: list[dict[str, Any]] = field(default_factory=list)
    error: RowError | None = None
    files: set[str] = field(default_factory=set)

    def empty(self) -> bool:
        return not self.points and not self.logs and not self.spans

    def add_point(self, name: str, labels: dict[str, str], ts: float, value: float) -> None:
        key = (name, tuple(sorted(labels.items())))
        self.points.setdefault(key, []).append((ts, value))

    def add_log(self, instance: str, ts: float, level: str, component: str,
                message: str) -> None:
        self.logs.setdefault(instance, []).append((ts, log_line(ts, level, component,
                                                                message)))

    def series(self) -> list[dict[str, Any]]:
        from rcaeval.corpora._write import series_id

        taken: set[str] = set()
        out = []
        for (name, labels), pts in sorted(self.points.items()):
            pts.sort()
            lab = dict(labels)
            out.append({"id": series_id(name, lab, taken), "name": name, "labels": lab,
                        "points": [[iso(t), v] for t, v in pts]})
        return out

    def log_lines(self) -> dict[str, list[str]]:
        return {inst: [line for _, line in sorted(rows, key=lambda r: r[0])]
                for inst, rows in self.logs.items()}


class _Windows:
    def __init__(self, windows: list[Window]) -> None:
        self.windows = sorted(windows, key=lambda w: w.start)
        self.starts = [w.start for w in self.windows]
        self.lo = min(self.starts) if windows else 0.0
        self.hi = max(w.end for w in windows) if windows else 0.0

    def hits(self, ts: float) -> list[Window]:
        if ts < self.lo or ts >= self.hi:
            return []
        i = bisect.bisect_right(self.starts, ts)
        return [w for w in self.windows[:i] if w.start <= ts < w.end]


def _num(cell: str, path: Path, line: int, col: str) -> float | None:
    s = cell.strip()
    if s == "" or s.lower() in ("nan", "null", "none"):
        return None
    try:
        v = float(s)
    except ValueError:
        raise RowError(f"column {col!r}: {s[:40]!r} is not a number", path, line) from None
    return v if math.isfinite(v) else None


Handler = Callable[[list[str], float, list[Window], Path, int], None]


def _long_metric(cols: list[str]) -> Handler:
    ix = {c: i for i, c in enumerate(cols)}
    name_i = ix.get("kpi_name", ix.get("name"))
    val_i, ent_i, bomc_i = ix["value"], ix["cmdb_id"], ix.get("bomc_id")

    def handle(row: list[str], ts: float, hit: list[Window], path: Path, line: int) -> None:
        v = _num(row[val_i], path, line, "value")
        if v is None:
            return
        labels = {"instance": row[ent_i]}
        if bomc_i is not None and row[bomc_i]:
            labels["bomc_id"] = row[bomc_i]
        for w in hit:
            w.add_point(row[name_i], labels, ts, v)
    return handle


def _wide_metric(cols: list[str], ts_i: int, ent: str | None) -> Handler:
    ent_i = cols.index(ent) if ent else None
    skip = {ts_i, ent_i, *(i for i, c in enumerate(cols) if c in TS_COLUMNS)}
    value_cols = [(i, c) for i, c in enumerate(cols) if i not in skip]

    def handle(row: list[str], ts: float, hit: list[Window], path: Path, line: int) -> None:
        for i, c in value_cols:
            v = _num(row[i], path, line, c)
            if v is None:
                continue
            if ent_i is not None:
                name, labels = c, {"instance": row[ent_i]}
            else:
                svc, _, metric = c.partition("_")
                name, labels = (metric or c), {"instance": svc}
            for w in hit:
                w.add_point(name, labels, ts, v)
    return handle


def _openrca_log(cols: list[str]) -> Handler:
    ix = {c: i for i, c in enumerate(cols)}
    ent_i, name_i, val_i = ix["cmdb_id"], ix.get("log_name"), ix["value"]

    def handle(row: list[str], ts: float, hit: list[Window], path: Path, line: int) -> None:
        msg, inst = row[val_i].strip(), row[ent_i]
        comp = row[name_i] if name_i is not None and row[name_i] else inst
        for w in hit:
            w.add_log(inst, ts, level_of(msg), comp, msg)
    return handle


def _rcaeval_log(cols: list[str]) -> Handler:
    ix = {c: i for i, c in enumerate(cols)}
    ent_i, msg_i, lvl_i = ix["container_name"], ix["message"], ix.get("level")

    def handle(row: list[str], ts: float, hit: list[Window], path: Path, line: int) -> None:
        msg, inst = row[msg_i].strip(), row[ent_i]
        lvl = level_of(msg, row[lvl_i] if lvl_i is not None else None)
        for w in hit:
            w.add_log(inst, ts, lvl, inst, msg)
    return handle


def _status(code: str) -> str:
    s = code.strip().lower()
    if s in ("", "none", "nan"):
        return "unset"
    if s in ("true", "ok"):
        return "ok"
    if s in ("false", "error"):
        return "error"
    try:
        n = int(float(s))
    except ValueError:
        return "unset"
    return "ok" if n == 0 or 100 <= n < 400 else "error"


def _trace(cols: list[str], fields: dict[str, str], duration_scale: float) -> Handler:
    ix = {c: i for i, c in enumerate(cols)}

    def get(row: list[str], key: str) -> str:
        col = fields.get(key)
        return row[ix[col]].strip() if col and col in ix else ""

    def handle(row: list[str], ts: float, hit: list[Window], path: Path, line: int) -> None:
        dur = _num(get(row, "duration"), path, line, fields["duration"])
        parent = get(row, "parent")
        span = {"trace_id": get(row, "trace_id"), "span_id": get(row, "span_id"),
                "parent_span_id": parent if parent and parent.lower() != "none" else None,
                "service": get(row, "service") or "unknown",
                "operation": get(row, "operation") or get(row, "service") or "span",
                "start": iso(ts), "duration_ms": max(0.0, (dur or 0.0) * duration_scale),
                "status": _status(get(row, "status"))}
        kind = get(row, "kind")
        if kind:
            span["attributes"] = {"type": kind}
        for w in hit:
            w.spans.append(span)
    return handle


TRACE_LAYOUTS: tuple[tuple[frozenset[str], dict[str, str], float], ...] = (
    # Market: timestamp,cmdb_id,span_id,trace_id,duration,type,status_code,operation_name,
    # parent_span (duration in microseconds)
    (frozenset({"span_id", "trace_id", "operation_name", "parent_span"}),
     {"trace_id": "trace_id", "span_id": "span_id", "parent": "parent_span",
      "service": "cmdb_id", "operation": "operation_name", "duration": "duration",
      "status": "status_code", "kind": "type"}, 1e-3),
    # Bank: timestamp,cmdb_id,parent_id,span_id,trace_id,duration (milliseconds)
    (frozenset({"span_id", "trace_id", "parent_id", "duration"}),
     {"trace_id": "trace_id", "span_id": "span_id", "parent": "parent_id",
      "service": "cmdb_id", "operation": "cmdb_id", "duration": "duration"}, 1.0),
    # Telecom: callType,startTime,elapsedTime,success,traceId,id,pid,cmdb_id,dsName,
    # serviceName (milliseconds)
    (frozenset({"calltype", "elapsedtime", "traceid", "pid"}),
     {"trace_id": "traceid", "span_id": "id", "parent": "pid", "service": "cmdb_id",
      "operation": "servicename", "duration": "elapsedtime", "status": "success",
      "kind": "calltype"}, 1.0),
    # RCAEval (Jaeger): time,traceID,spanID,serviceName,methodName,operationName,
    # startTimeMillis,startTime,duration,statusCode,parentSpanID (microseconds)
    (frozenset({"traceid", "spanid", "servicename", "operationname", "duration"}),
     {"trace_id": "traceid", "span_id": "spanid", "parent": "parentspanid",
      "service": "servicename", "operation": "operationname", "duration": "duration",
      "status": "statuscode", "kind": "methodname"}, 1e-3),
)


def _ts_column(cols: list[str], prefer: tuple[str, ...]) -> int | None:
    for name in prefer:
        if name in cols:
            return cols.index(name)
    return None


def handler_for(cols: list[str]) -> tuple[str, int, Handler] | None:
    """(kind, timestamp column, row handler) for a header, or None for an unknown layout."""
    have = set(cols)
    for need, fields, scale in TRACE_LAYOUTS:
        if need <= have:
            ts_i = _ts_column(cols, ("starttime", "timestamp", "time"))
            if ts_i is None:
                return None
            return "traces", ts_i, _trace(cols, fields, scale)
    if {"log_id", "cmdb_id", "value"} <= have:
        ts_i = _ts_column(cols, ("timestamp",))
        return ("logs", ts_i, _openrca_log(cols)) if ts_i is not None else None
    if {"container_name", "message"} <= have:
        ts_i = _ts_column(cols, ("timestamp", "time"))
        return ("logs", ts_i, _rcaeval_log(cols)) if ts_i is not None else None
    if "value" in have and "cmdb_id" in have and have & {"kpi_name", "name"}:
        ts_i = _ts_column(cols, TS_COLUMNS)
        return ("metrics", ts_i, _long_metric(cols)) if ts_i is not None else None
    ts_i = _ts_column(cols, TS_COLUMNS)
    if ts_i is None:
        return None
    ent = next((c for c in ENTITY_COLUMNS if c in have), None)
    return "metrics", ts_i, _wide_metric(cols, ts_i, ent)


def scan_file(path: Path, windows: list[Window], *, kinds: frozenset[str]) -> str | None:
    """Add the rows of one telemetry CSV to the windows they fall in. Returns the file's
    kind (``metrics``, ``logs``, ``traces``), or None when its header is no known layout or
    its kind is not in ``kinds``. A bad row marks the windows it falls in (a row whose time
    cannot be read marks every window; a bad row outside every window marks none) with a
    :class:`RowError`; the scan goes on. A file that is not a regular file (a FIFO, a
    directory named ``*.csv``) or cannot be opened marks every window and is not read."""
    idx = _Windows(windows)
    try:
        fh = open_source(path)
    except RowError as exc:
        _mark(windows, exc)
        return None
    with fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            return None
        cols = [c.strip().lstrip("\ufeff").lower() for c in header]
        found = handler_for(cols)
        if found is None or found[0] not in kinds:
            return None
        kind, ts_i, handle = found
        width = len(cols)
        for row in csv_rows(reader):
            if isinstance(row, csv.Error):
                _mark(windows, RowError(f"not valid CSV: {row}", path, reader.line_num))
                continue
            line = reader.line_num
            if not row:
                continue
            ts = epoch_seconds(row[ts_i]) if ts_i < len(row) else None
            if ts is None:
                # a row whose time cannot be read could belong to any window
                what = (f"unknown timestamp format {row[ts_i][:40]!r} in column "
                        f"{cols[ts_i]!r}" if ts_i < len(row) and len(row) == width else
                        f"{len(row)} fields, the header has {width}")
                _mark(windows, RowError(what, path, line))
                continue
            hit = idx.hits(ts)
            if not hit:
                continue
            if len(row) != width:
                _mark(hit, RowError(f"{len(row)} fields, the header has {width}", path, line))
                continue
            try:
                handle(row, ts, hit, path, line)
            except RowError as exc:
                _mark(hit, exc)
                continue
            for w in hit:
                w.files.add(path.name)
    return kind


def _mark(windows: list[Window], err: RowError) -> None:
    for w in windows:
        if w.error is None:
            w.error = err
