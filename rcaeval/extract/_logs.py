"""``raw_log_line`` (logs/*.log, evidences/logs.json) and ``raw_telemetry`` flatteners."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pyarrow as pa

from rcaeval.extract._schema import TableBuilder
from rcaeval.extract._values import object_items, parse_ts, text

_LEVELS = r"TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|PANIC|CRITICAL|CRIT"
_ISO_TS = re.compile(
    r"^\s*(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:\s?(?:Z|[+-]\d{2}(?::?\d{2})?))?)"
    r"(?=[\s\]|,;]|$)"
)
_BRACKET_TS = re.compile(
    r"^\s*\[(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:\s+[+-]\d{2}:?\d{2})?)\]"
)
_BRACKET_LEVEL = re.compile(rf"^\s*\[({_LEVELS})\]", re.IGNORECASE)
_BARE_LEVEL = re.compile(rf"^\s*({_LEVELS})(?=[\s:\]]|$)")
_COMPONENT = re.compile(r"^\s*\[([A-Za-z][A-Za-z0-9_.:/-]{0,63})\]")


def parse_log_line(line: str) -> tuple[Any, str | None, str | None]:
    """``(ts, level, component)`` recognised at the start of one raw log line.

    Timestamps: ISO-8601 (``2026-10-03T14:05:12Z``, ``2026-10-03 14:05:12,345``) or bracketed
    ``[2026/10/03 14:05:12.345 +00:00]``. Level: ``[LEVEL]`` or a bare upper-case ``LEVEL`` word
    right after the timestamp (or at line start), upper-cased. Component: ``[name]`` directly
    after a bare level (the ``<ts> <LEVEL> [<component>] <message>`` layout).
    """
    ts = None
    rest = line
    m = _BRACKET_TS.match(line) or _ISO_TS.match(line)
    if m:
        ts = parse_ts(m.group(1))
        rest = line[m.end():]
    level = component = None
    lm = _BRACKET_LEVEL.match(rest)
    if lm:
        level = lm.group(1).upper()
    else:
        lm = _BARE_LEVEL.match(rest)
        if lm:
            level = lm.group(1)
            cm = _COMPONENT.match(rest[lm.end():].lstrip(":"))
            if cm:
                component = cm.group(1)
    return ts, level, component


def flatten_log_text(content: str, file: str) -> pa.Table:
    """One ``raw_log_line`` row per non-blank line of a raw log; ``text`` is the whole line."""
    b = TableBuilder("raw_log_line")
    for no, raw in enumerate(content.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        ts, level, component = parse_log_line(line)
        b.add(file=file, line_no=no, ts=ts, level=level, component=component, text=line)
    return b.finish()


def flatten_logs_json(obj: Any, file: str = "evidences/logs.json",
                      notes: list[str] | None = None) -> pa.Table:
    """``evidences/logs.json`` ``entries[]``: ``line_no`` = entry index + 1, ``text`` = message."""
    b = TableBuilder("raw_log_line")
    for i, e in object_items(obj, "entries", notes):
        level = text(e.get("level"))
        b.add(file=file, line_no=i + 1, entry_id=text(e.get("id")), ts=parse_ts(e.get("ts")),
              level=level.upper() if level else None, component=text(e.get("component")),
              instance=text(e.get("instance")), text=text(e.get("message")))
    return b.finish()


def flatten_telemetry(content: str) -> pa.Table:
    """``.opencode/telemetry.log``: one row per non-blank line. JSON-object lines fill
    ``ts/event/tool/status/detail``; other lines keep ``event`` NULL. ``text`` is the line."""
    b = TableBuilder("raw_telemetry")
    for no, raw in enumerate(content.split("\n"), start=1):
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, dict):
            b.add(line_no=no, ts=parse_ts(obj.get("ts")), event=text(obj.get("event")),
                  tool=text(obj.get("tool")), status=text(obj.get("status")),
                  detail=text(obj.get("detail")), text=line)
        else:
            b.add(line_no=no, text=line)
    return b.finish()
