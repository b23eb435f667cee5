"""Flatteners for the core evidence files: metrics, queries and events."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from rcaeval.extract._schema import TableBuilder
from rcaeval.extract._values import integer, number, parse_ts, text


def _list_of(obj: Any, key: str) -> list[Any] | None:
    if isinstance(obj, list):
        return obj
    if isinstance(obj, dict) and isinstance(obj.get(key), list):
        return obj[key]
    return None


def _point(p: Any) -> tuple[Any, Any]:
    """``(ts, value)`` of a point given as ``[ts, value]`` or ``{"ts"|"t"|"timestamp",
    "value"|"v"}``."""
    if isinstance(p, list | tuple) and len(p) >= 2:
        return p[0], p[1]
    if isinstance(p, dict):
        ts = next((p[k] for k in ("ts", "t", "timestamp", "time") if k in p), None)
        val = next((p[k] for k in ("value", "v") if k in p), None)
        return ts, val
    return None, None


def flatten_metrics(obj: Any, notes: list[str] | None = None) -> pa.Table:
    """``metrics.json`` ``series[] × points[]`` → ``raw_metric_point``.

    Points whose value is not a finite number (numeric strings count) are skipped and counted
    in ``notes``. A series with no usable point still yields one row with NULL ``ts``/``value``
    so that its id is visible to reference resolution.
    """
    b = TableBuilder("raw_metric_point")
    series = _list_of(obj, "series")
    if series is None:
        if notes is not None:
            notes.append("no 'series' list")
        return b.finish()
    skipped = bad_series = 0
    for si, s in enumerate(series):
        if not isinstance(s, dict):
            bad_series += 1
            continue
        sid, name = text(s.get("id")), text(s.get("name"))
        raw_labels = s.get("labels")
        labels = ([(str(k), text(v)) for k, v in raw_labels.items()]
                  if isinstance(raw_labels, dict) else None)
        emitted = 0
        points = s.get("points")
        for p in points if isinstance(points, list) else ():
            ts, val = _point(p)
            value = number(val)
            if value is None:
                skipped += 1
                continue
            b.add(series_idx=si, series_id=sid, name=name, labels=labels, ts=parse_ts(ts),
                  value=value)
            emitted += 1
        if not emitted:
            b.add(series_idx=si, series_id=sid, name=name, labels=labels)
    if notes is not None:
        if skipped:
            notes.append(f"skipped {skipped} non-numeric metric points")
        if bad_series:
            notes.append(f"skipped {bad_series} series that are not objects")
    return b.finish()


def flatten_queries(obj: Any, notes: list[str] | None = None) -> pa.Table:
    """``queries.json`` ``queries[]`` → ``raw_query`` (``idx`` = position in the list)."""
    b = TableBuilder("raw_query")
    queries = _list_of(obj, "queries")
    if queries is None:
        if notes is not None:
            notes.append("no 'queries' list")
        return b.finish()
    skipped = 0
    for i, q in enumerate(queries):
        if not isinstance(q, dict):
            skipped += 1
            continue
        b.add(idx=i, query_id=text(q.get("id")), digest=text(q.get("digest")),
              kind=text(q.get("kind")), sql_text=text(q.get("sql_text")),
              instance=text(q.get("instance")), exec_count=integer(q.get("exec_count")),
              avg_latency_ms=number(q.get("avg_latency_ms")), note=text(q.get("note")))
    if skipped and notes is not None:
        notes.append(f"skipped {skipped} queries that are not objects")
    return b.finish()


def flatten_events(events: Any, source: str, notes: list[str] | None = None) -> pa.Table:
    """A list of events (``events.json`` ``events[]`` or the report's ``evidence.events``)
    → ``raw_event`` rows tagged with ``source``."""
    b = TableBuilder("raw_event")
    items = _list_of(events, "events")
    if items is None:
        if notes is not None:
            notes.append("no 'events' list")
        return b.finish()
    skipped = 0
    for i, e in enumerate(items):
        if not isinstance(e, dict):
            skipped += 1
            continue
        b.add(idx=i, source=source, event_id=text(e.get("id")), ts=parse_ts(e.get("ts")),
              type=text(e.get("type")), object=text(e.get("object")),
              reason=text(e.get("reason")), message=text(e.get("message")))
    if skipped and notes is not None:
        notes.append(f"skipped {skipped} events that are not objects")
    return b.finish()


def report_events(report: Any) -> list[Any] | None:
    """The report's inline ``evidence.events`` list, if any."""
    if isinstance(report, dict):
        ev = report.get("evidence")
        if isinstance(ev, dict) and isinstance(ev.get("events"), list):
            return ev["events"]
    return None
