"""Flatteners for the core evidence files: metrics, queries and events."""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa

from rcaeval.extract._schema import PAYLOAD_SCHEMAS, TableBuilder
from rcaeval.extract._values import integer, list_of, number, object_items, parse_ts, text


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
    series = list_of(obj, "series")
    if series is None:
        if notes is not None:
            notes.append("no 'series' list")
        return PAYLOAD_SCHEMAS["raw_metric_point"].empty_table()
    # column lists (one append per point and column; no per-row dicts)
    c_idx: list[int] = []
    c_sid: list[str | None] = []
    c_name: list[str | None] = []
    c_labels: list[Any] = []
    c_ts: list[Any] = []
    c_val: list[float | None] = []
    skipped = bad_series = 0
    for si, s in enumerate(series):
        if not isinstance(s, dict):
            bad_series += 1
            continue
        sid, name = text(s.get("id")), text(s.get("name"))
        raw_labels = s.get("labels")
        labels = ([(str(k), text(v)) for k, v in raw_labels.items()]
                  if isinstance(raw_labels, dict) else None)
        ts_col: list[Any] = []
        val_col: list[float] = []
        points = s.get("points")
        for p in points if isinstance(points, list) else ():
            if type(p) is list and len(p) >= 2:
                ts, val = p[0], p[1]
            else:
                ts, val = _point(p)
            value = val if type(val) is float and math.isfinite(val) else number(val)
            if value is None:
                skipped += 1
                continue
            ts_col.append(parse_ts(ts))
            val_col.append(value)
        k = len(val_col) or 1
        if val_col:
            c_ts.extend(ts_col)
            c_val.extend(val_col)
        else:
            c_ts.append(None)
            c_val.append(None)
        c_idx.extend([si] * k)
        c_sid.extend([sid] * k)
        c_name.extend([name] * k)
        c_labels.extend([labels] * k)
    if notes is not None:
        if skipped:
            notes.append(f"skipped {skipped} non-numeric metric points")
        if bad_series:
            notes.append(f"skipped {bad_series} series that are not objects")
    schema = PAYLOAD_SCHEMAS["raw_metric_point"]
    return pa.Table.from_arrays(
        [pa.array(col, type=f.type)
         for col, f in zip((c_idx, c_sid, c_name, c_labels, c_ts, c_val), schema, strict=True)],
        schema=schema,
    )


def flatten_queries(obj: Any, notes: list[str] | None = None) -> pa.Table:
    """``queries.json`` ``queries[]`` → ``raw_query`` (``idx`` = position in the list)."""
    b = TableBuilder("raw_query")
    for i, q in object_items(obj, "queries", notes):
        b.add(idx=i, query_id=text(q.get("id")), digest=text(q.get("digest")),
              kind=text(q.get("kind")), sql_text=text(q.get("sql_text")),
              instance=text(q.get("instance")), exec_count=integer(q.get("exec_count")),
              avg_latency_ms=number(q.get("avg_latency_ms")), note=text(q.get("note")))
    return b.finish()


def flatten_events(events: Any, source: str, notes: list[str] | None = None) -> pa.Table:
    """A list of events (``events.json`` ``events[]`` or the report's ``evidence.events``)
    → ``raw_event`` rows tagged with ``source``."""
    b = TableBuilder("raw_event")
    for i, e in object_items(events, "events", notes):
        b.add(idx=i, source=source, event_id=text(e.get("id")), ts=parse_ts(e.get("ts")),
              type=text(e.get("type")), object=text(e.get("object")),
              reason=text(e.get("reason")), message=text(e.get("message")))
    return b.finish()


def report_events(report: Any) -> list[Any] | None:
    """The report's inline ``evidence.events`` list, if any."""
    if isinstance(report, dict):
        ev = report.get("evidence")
        if isinstance(ev, dict) and isinstance(ev.get("events"), list):
            return ev["events"]
    return None
