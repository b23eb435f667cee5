"""``search_traces``: the trace spans of the incident (``incident/traces.json``), the way a
tracing backend (Jaeger, Tempo, an OpenTelemetry collector) shows them to an on-call engineer.

A span is ``{"trace_id", "span_id", "service", "operation", "start", "duration_ms",
"status", ...}`` with ``status`` ``error``, ``ok`` or ``unset`` (OpenTelemetry's status
codes); optional fields (``parent_span_id``, ``kind``, ``status_message``, ``attributes``,
``resource``, ``events``) are served as they are. Its evidence id is ``id`` when the data
gives one, else ``T-<trace_id>-<span_id>``. What is returned is recorded into
``evidences/traces.json`` (docs/tools.md, docs/bundle-contract.md "Incident data").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from rcaeval.bundle import SPAN_STATUSES, BundleError, BundleWriter, parse_time
from rcaeval.errors import InputError

SPAN_LIMIT, SPAN_LIMIT_MAX = 50, 200
SPAN_KINDS = ("internal", "server", "client", "producer", "consumer", "unspecified")
_REQUIRED_TEXT = ("trace_id", "span_id", "service", "operation")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.:/@+-]+")


def span_id(trace_id: str, span: str) -> str:
    """A span's default evidence id, ``T-<trace_id>-<span_id>`` (characters an evidence id
    cannot hold become ``_``; ids of any form are accepted, e.g. corpora's decimal ones)."""
    return _UNSAFE.sub("_", f"T-{trace_id}-{span}")[:200]


def load_spans(doc: Any, path: Path) -> list[dict[str, Any]]:
    """The spans of an ``incident/traces.json`` document (None: no file), checked: a span
    without one of its required fields is an input error naming the file and the field."""
    if doc is None:
        return []
    items = doc.get("spans") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise InputError("expected an object with a 'spans' list", file=str(path),
                         field="spans")
    out = []
    for i, sp in enumerate(items):
        where = f"spans[{i}]"
        if not isinstance(sp, dict):
            raise InputError(f"span {i + 1} is not an object", file=str(path), field=where)
        for key in _REQUIRED_TEXT:
            if not isinstance(sp.get(key), str) or not sp[key].strip():
                raise InputError(f"span {i + 1} needs a {key} string", file=str(path),
                                 field=f"{where}.{key}")
        if sp.get("status") not in SPAN_STATUSES:
            raise InputError(f"span {i + 1}: status {sp.get('status')!r} is not one of "
                             + ", ".join(SPAN_STATUSES), file=str(path), field=f"{where}.status")
        try:
            parse_time(sp.get("start"), "start")
        except BundleError as exc:
            raise InputError(f"span {i + 1}: start is not an ISO-8601 timestamp: "
                             f"{sp.get('start')!r}", file=str(path),
                             field=f"{where}.start") from exc
        dur = sp.get("duration_ms")
        if isinstance(dur, bool) or not isinstance(dur, int | float) or not math.isfinite(
                dur) or dur < 0:
            raise InputError(f"span {i + 1}: duration_ms must be a number >= 0, got {dur!r}",
                             file=str(path), field=f"{where}.duration_ms")
        out.append({**sp, "id": str(sp.get("id") or span_id(sp["trace_id"], sp["span_id"]))})
    return out


def span_start(span: dict[str, Any]) -> datetime:
    return parse_time(span["start"], "start")


def search_traces(tools: Any, page: Callable[..., Any], bad: type[Exception],
                  service: str | None = None, operation: str | None = None,
                  status: str | None = None, min_duration_ms: float | None = None,
                  trace_id: str | None = None, start: str | None = None,
                  end: str | None = None, limit: int | None = None,
                  cursor: str | None = None) -> dict[str, Any]:
    """``IncidentTools.search_traces``: one recorded call of the traces channel."""
    args = {"service": service, "operation": operation, "status": status,
            "min_duration_ms": min_duration_ms, "trace_id": trace_id, "start": start,
            "end": end, "limit": limit, "cursor": cursor}

    def run() -> dict[str, Any]:
        s, e = tools._range(start, end)
        out = traces_page(tools.data.spans, tools.writer, page, bad, service=service,
                          operation=operation, status=status, min_duration_ms=min_duration_ms,
                          trace_id=trace_id, start=s, end=e, limit=limit, cursor=cursor)
        return {**out, **tools._range_note(s, e, out["total"])}
    return tools.call("search_traces", args, run, channel="traces")


def traces_page(spans: list[dict[str, Any]], writer: BundleWriter, page: Callable[..., Any],
                bad: type[Exception], *, service: str | None, operation: str | None,
                status: str | None, min_duration_ms: float | None, trace_id: str | None,
                start: datetime | None, end: datetime | None, limit: int | None,
                cursor: str | None) -> dict[str, Any]:
    """One page of spans, error spans first, then the slowest (then by start and id),
    recorded into the bundle.

    ``page`` is the tools' pager ``(items, limit, cursor, default, cap)``; ``bad`` the error
    type for a bad argument. ``service`` matches exactly and ``operation`` as a substring
    (both case-insensitive); a time range keeps the spans that started inside it."""
    if status is not None and status not in SPAN_STATUSES:
        raise bad(f"status must be one of {', '.join(SPAN_STATUSES)}, got {status!r}")
    if min_duration_ms is not None and (not math.isfinite(min_duration_ms)
                                        or min_duration_ms < 0):
        raise bad(f"min_duration_ms must be a number >= 0, got {min_duration_ms!r}")
    svc, op = (service or "").lower(), (operation or "").lower()
    hits = []
    for sp in spans:
        if svc and str(sp["service"]).lower() != svc:
            continue
        if op and op not in str(sp["operation"]).lower():
            continue
        if status and sp["status"] != status:
            continue
        if min_duration_ms is not None and float(sp["duration_ms"]) < min_duration_ms:
            continue
        if trace_id and sp["trace_id"].lower() != trace_id.lower():
            continue
        if start or end:
            at = span_start(sp)
            if (start and at < start) or (end and at > end):
                continue
        hits.append(sp)
    hits.sort(key=lambda sp: (sp["status"] != "error", -float(sp["duration_ms"]),
                              span_start(sp), sp["id"]))
    items, nxt, _ = page(hits, limit, cursor, SPAN_LIMIT, SPAN_LIMIT_MAX)
    ids = writer.add_spans(items)
    out: dict[str, Any] = {
        "spans": items, "total": len(hits), "next_cursor": nxt,
        "counts": {s: sum(1 for sp in spans if sp["status"] == s) for s in SPAN_STATUSES},
        "_ids": ids}
    if not spans:
        out["note"] = "this incident has no trace spans"
    elif not hits and (service or operation):
        out["known"] = {"services": sorted({str(sp["service"]) for sp in spans}),
                        "operations": sorted({str(sp["operation"]) for sp in spans})[:100]}
    return out
