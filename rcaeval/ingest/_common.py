"""What the telemetry importers share: the ``--window START..END`` option, Unix-time
conversions, reading a source file as JSON or JSON Lines, and where ``--out`` points
(docs/import.md)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval.errors import InputError
from rcaeval.ingest._incident import source_error

MAX_SOURCE_BYTES = 4 * 1024**3
"""The largest source file an importer reads."""


@dataclass(frozen=True)
class Window:
    """An inclusive time window (aware UTC datetimes)."""

    start: datetime
    end: datetime

    def holds(self, at: datetime) -> bool:
        return self.start <= at <= self.end

    def text(self) -> str:
        return f"{iso(self.start)}..{iso(self.end)}"


def parse_iso(value: str, what: str) -> datetime:
    """An ISO-8601 timestamp as an aware UTC datetime (naive values are UTC)."""
    try:
        dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        return dt.astimezone(UTC) if dt.tzinfo else dt.replace(tzinfo=UTC)
    except (ValueError, OverflowError) as exc:  # 9999-12-31T23:00:00-05:00 is past year 9999
        raise InputError(f"not an ISO-8601 timestamp (of a year 1..9999 in UTC): {value!r:.80}"
                         " (e.g. 2026-10-03T14:05:00Z)", field=what) from exc


def parse_window(text: str | None) -> Window | None:
    """``--window START..END`` (ISO-8601 UTC) as a :class:`Window`; None when not given."""
    if text is None:
        return None
    start, sep, end = text.partition("..")
    if not sep or not start.strip() or not end.strip():
        raise InputError(f"expected START..END, got {text!r}", field="--window")
    w = Window(parse_iso(start, "--window"), parse_iso(end, "--window"))
    if w.start > w.end:
        raise InputError(f"the window starts after it ends: {text!r}", field="--window")
    return w


def from_unix_nanos(value: int) -> datetime:
    """Nanoseconds since the Unix epoch as an aware UTC datetime (microsecond precision)."""
    secs, nanos = divmod(value, 10**9)
    return datetime.fromtimestamp(secs, UTC).replace(microsecond=nanos // 1000)


def iso(dt: datetime) -> str:
    """``2026-10-03T14:05:00Z`` or ``2026-10-03T14:05:00.123456Z``."""
    return dt.astimezone(UTC).isoformat().replace("+00:00", "Z")


MAX_UNIX_S = 253402128000
"""9999-12-30T00:00:00Z: the last Unix second a timestamp of an import may be."""


def unix_int(value: Any, path: str | Path, field: str, line: int | None = None, *,
             per_second: int = 10**9) -> int:
    """A protobuf-JSON int64 (a decimal string or an integer) as an int: a Unix time in
    units of ``1/per_second`` s (nanoseconds by default), between 1970 and 9999."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise source_error(f"expected an integer or a decimal string, got {value!r:.60}",
                           path, line=line, field=field)
    if isinstance(value, str) and not value.strip().isdigit():
        raise source_error(f"expected a decimal integer string, got {value!r:.60}", path,
                           line=line, field=field)
    text = value.strip() if isinstance(value, str) else None
    if text is not None and len(text) > 40 or not 0 <= int(value) <= MAX_UNIX_S * per_second:
        raise source_error(f"{value!r:.60} is no Unix time between 1970 and 9999", path,
                           line=line, field=field)
    return int(value)


def count_int(value: Any, path: str | Path, field: str, default: int = 0) -> int:
    """A count field (``count``, ``restartCount``): a non-negative integer (or a decimal
    string of one) below 2**63; ``default`` when absent or null."""
    if value is None:
        return default
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) < 20:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise source_error(f"expected a count (a non-negative integer), got {value!r:.60}",
                           path, field=field)
    return value


def read_source(path: Path) -> bytes:
    """The bytes of one source file, read as every user input file is
    (:func:`rcaeval._inputs.read_input`): a missing file is not found (exit 6); a FIFO,
    device, socket or directory, or a file over :data:`MAX_SOURCE_BYTES`, is an input error
    naming it (exit 3), and opening never blocks."""
    from rcaeval._inputs import read_input

    return read_input(path, "import", cap=MAX_SOURCE_BYTES)


def read_json(path: Path) -> Any:
    """A source file holding one JSON document."""
    try:
        return orjson.loads(read_source(path))
    except orjson.JSONDecodeError as exc:
        raise source_error(f"not valid JSON: {exc}", path, line=exc.lineno) from exc


def json_documents(path: Path) -> Iterator[tuple[int | None, Any]]:
    """The JSON documents of a file: one document (line None), or JSON Lines (one per
    non-blank line, with its 1-based line number) - what exporters write either way."""
    raw = read_source(path)
    try:
        yield None, orjson.loads(raw)
        return
    except orjson.JSONDecodeError:
        pass
    for no, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield no, orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise source_error(f"not a JSON document (one per line): {exc}", path,
                               line=no) from exc


def incident_dir(out: str | os.PathLike[str]) -> Path:
    """``--out``: a case dir (``case.yaml`` or ``case.json`` beside ``incident/``) means its
    ``incident/``; any other path is the incident dir itself."""
    p = Path(out)
    if (p / "case.yaml").is_file() or (p / "case.json").is_file():
        return p / "incident"
    return p
