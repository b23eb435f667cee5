"""Flatteners for the core evidence files: metrics, queries and events."""

from __future__ import annotations

import math
from typing import Any

import pyarrow as pa

from rcaeval.extract._schema import PAYLOAD_SCHEMAS, TS, TableBuilder
from rcaeval.extract._values import (
    integer,
    list_of,
    measurement,
    number,
    object_items,
    parse_ts,
    text,
    ts_micros,
)


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

    Points whose value is not a number (numeric strings count) are skipped and counted in
    ``notes``. ``NaN`` and infinite values are kept as they are (and counted in ``notes``): the
    judge counts them as the facts ``metrics.nan_points`` / ``metrics.infinite_points`` and
    never compares them with a threshold. A series with no usable point still yields one row
    with NULL ``ts``/``value`` so that its id is visible to reference resolution.
    """
    series = list_of(obj, "series")
    if series is None:
        if notes is not None:
            notes.append("no 'series' list")
        return PAYLOAD_SCHEMAS["raw_metric_point"].empty_table()
    # per series: index, id, name, labels (converted to Arrow once per series and repeated
    # by ``take``); per point: the series' ordinal, ts (epoch microseconds) and value
    s_idx: list[int] = []
    s_sid: list[str | None] = []
    s_name: list[str | None] = []
    s_labels: list[Any] = []
    c_series: list[int] = []
    c_ts: list[int | None] = []
    c_val: list[float | None] = []
    skipped = bad_series = nan = inf = 0
    for si, s in enumerate(series):
        if not isinstance(s, dict):
            bad_series += 1
            continue
        raw_labels = s.get("labels")
        s_idx.append(si)
        s_sid.append(text(s.get("id")))
        s_name.append(text(s.get("name")))
        s_labels.append([(str(k), text(v)) for k, v in raw_labels.items()]
                        if isinstance(raw_labels, dict) else None)
        n = len(c_val)
        points = s.get("points")
        for p in points if isinstance(points, list) else ():
            if type(p) is list and len(p) >= 2:
                ts, val = p[0], p[1]
            else:
                ts, val = _point(p)
            value = val if type(val) is float else measurement(val)
            if value is None:
                skipped += 1
                continue
            if not math.isfinite(value):
                if value != value:
                    nan += 1
                else:
                    inf += 1
            c_ts.append(ts_micros(ts))
            c_val.append(value)
        k = len(c_val) - n
        if not k:
            c_ts.append(None)
            c_val.append(None)
            k = 1
        c_series.extend([len(s_idx) - 1] * k)
    if notes is not None:
        if skipped:
            notes.append(f"skipped {skipped} non-numeric metric points")
        if nan or inf:
            notes.append(f"kept {nan} NaN and {inf} infinite metric points (never compared "
                         "with a threshold)")
        if bad_series:
            notes.append(f"skipped {bad_series} series that are not objects")
    schema = PAYLOAD_SCHEMAS["raw_metric_point"]
    rows = pa.array(c_series, pa.int32())
    per_series = [pa.array(col, f.type).take(rows)
                  for col, f in zip((s_idx, s_sid, s_name, s_labels), schema, strict=False)]
    return pa.Table.from_arrays(
        [*per_series, pa.array(c_ts, pa.int64()).cast(TS), pa.array(c_val, pa.float64())],
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
