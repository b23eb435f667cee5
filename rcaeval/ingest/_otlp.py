"""OpenTelemetry traces as OTLP JSON -> ``incident/traces.json`` (docs/import.md, "OTLP
traces").

The source is what an OTLP/HTTP JSON exporter sends and the collector's ``file`` exporter
writes: ``ExportTraceServiceRequest`` documents, one per file or one per line (JSON Lines),
``{"resourceSpans": [{"resource": {"attributes": [...]}, "scopeSpans": [{"scope": {...},
"spans": [...]}]}]}``. Per the OTLP/JSON encoding, ``traceId``/``spanId`` are hex strings,
int64 times (``startTimeUnixNano``) decimal strings or numbers, enums (``kind``,
``status.code``) integers or their names. Older exports' ``instrumentationLibrarySpans`` is
read as ``scopeSpans``; base64 ids (protobuf's own JSON mapping) are converted to hex.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from rcaeval.ingest._common import (
    Window,
    from_unix_nanos,
    iso,
    json_documents,
    parse_iso,
    unix_int,
)
from rcaeval.ingest._incident import merge_records, source_error
from rcaeval.tools import load_spans, span_id

KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")
"""OTLP ``Span.SpanKind`` by number."""
STATUSES = ("unset", "ok", "error")
"""OTLP ``Status.StatusCode`` by number, as incident span statuses."""
_HEX = re.compile(r"^[0-9a-fA-F]+$")


def _enum(value: Any, names: tuple[str, ...], prefix: str, path: Path, line: int | None,
          field: str) -> str:
    if value is None:
        return names[0]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    if isinstance(value, str) and value.upper().removeprefix(prefix).lower() in names:
        return value.upper().removeprefix(prefix).lower()
    raise source_error(f"unknown value {value!r} (expected 0..{len(names) - 1} or "
                       f"{prefix}{names[0].upper()}, ...)", path, line=line, field=field)


def _id(value: Any, nbytes: int, path: Path, line: int | None, field: str,
        *, required: bool = True) -> str | None:
    if value in (None, "") and not required:
        return None
    if isinstance(value, str) and len(value) == 2 * nbytes and _HEX.match(value):
        if set(value) == {"0"}:
            raise source_error("an all-zero id is invalid", path, line=line, field=field)
        return value.lower()
    if isinstance(value, str):
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raw = b""
        if len(raw) == nbytes:
            return raw.hex()
    raise source_error(f"expected a {nbytes}-byte id as {2 * nbytes} hex digits, got "
                       f"{value!r}", path, line=line, field=field)


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` (``{"stringValue": ...}``, ``intValue``, ``arrayValue``, ...)
    as plain JSON."""
    if not isinstance(value, dict) or not value:
        return None
    kind, v = next(iter(value.items()))
    if kind == "arrayValue":
        return [any_value(x) for x in (v or {}).get("values") or []]
    if kind == "kvlistValue":
        return attributes((v or {}).get("values"))
    if kind == "intValue":
        return int(v) if isinstance(v, str) and v.lstrip("-").isdigit() else v
    return v


def _plain(v: Any) -> bool:
    """``v`` can be JSON text as it is (no NaN/Infinity; the stdlib encoder writes any int)."""
    try:
        json.dumps(v, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        return False
    return True


def attributes(items: Any) -> dict[str, str]:
    """OTLP ``KeyValue`` list -> ``{key: text}`` (non-strings as JSON text)."""
    out: dict[str, str] = {}
    for kv in items if isinstance(items, list) else []:
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            v = any_value(kv.get("value"))
            out[kv["key"]] = v if isinstance(v, str) else json.dumps(v, allow_nan=False) \
                if _plain(v) else str(v)
    return out


def _span(sp: Any, resource: dict[str, str], path: Path, line: int | None,
          where: str) -> dict[str, Any]:
    if not isinstance(sp, dict):
        raise source_error("a span must be an object", path, line=line, field=where)
    tid = _id(sp.get("traceId"), 16, path, line, f"{where}.traceId")
    sid = _id(sp.get("spanId"), 8, path, line, f"{where}.spanId")
    name = sp.get("name")
    if not isinstance(name, str) or not name.strip():
        raise source_error("a span needs a name", path, line=line, field=f"{where}.name")
    if "startTimeUnixNano" not in sp or "endTimeUnixNano" not in sp:
        missing = "startTimeUnixNano" if "startTimeUnixNano" not in sp else "endTimeUnixNano"
        raise source_error("a span needs start and end times", path, line=line,
                           field=f"{where}.{missing}")
    t0 = unix_int(sp["startTimeUnixNano"], path, f"{where}.startTimeUnixNano", line)
    t1 = unix_int(sp["endTimeUnixNano"], path, f"{where}.endTimeUnixNano", line)
    if t1 < t0:
        raise source_error("the span ends before it starts", path, line=line,
                           field=f"{where}.endTimeUnixNano")
    status = sp.get("status") if isinstance(sp.get("status"), dict) else {}
    rec: dict[str, Any] = {
        "id": span_id(str(tid), str(sid)), "trace_id": tid, "span_id": sid,
        "parent_span_id": _id(sp.get("parentSpanId"), 8, path, line, f"{where}.parentSpanId",
                              required=False),
        "service": resource.get("service.name") or "unknown_service",
        "operation": name.strip(),
        "kind": _enum(sp.get("kind"), KINDS, "SPAN_KIND_", path, line, f"{where}.kind"),
        "start": iso(from_unix_nanos(t0)),
        "duration_ms": round((t1 - t0) / 1e6, 6),
        "status": _enum(status.get("code"), STATUSES, "STATUS_CODE_", path, line,
                        f"{where}.status.code"),
    }
    if isinstance(status.get("message"), str) and status["message"]:
        rec["status_message"] = status["message"]
    if sp.get("attributes"):
        rec["attributes"] = attributes(sp["attributes"])
    if resource:
        rec["resource"] = resource
    events = []
    if not isinstance(sp.get("events") or [], list):
        raise source_error("expected an 'events' list", path, line=line, field=f"{where}.events")
    for j, ev in enumerate(sp.get("events") or []):
        if not isinstance(ev, dict):
            continue
        item: dict[str, Any] = {"name": str(ev.get("name") or "")}
        if ev.get("timeUnixNano") is not None:
            item["ts"] = iso(from_unix_nanos(unix_int(
                ev["timeUnixNano"], path, f"{where}.events[{j}].timeUnixNano", line)))
        if ev.get("attributes"):
            item["attributes"] = attributes(ev["attributes"])
        events.append(item)
    if events:
        rec["events"] = events
    return rec


def otlp_spans(path: Path) -> list[dict[str, Any]]:
    """Every span of one OTLP JSON file (one document or JSON Lines), as incident spans."""
    out: list[dict[str, Any]] = []
    for line, doc in json_documents(path):
        if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans"), list):
            raise source_error("expected an OTLP traces document with a 'resourceSpans' list",
                               path, line=line, field="resourceSpans")
        for i, rs in enumerate(doc["resourceSpans"]):
            if not isinstance(rs, dict):
                raise source_error("expected an object", path, line=line,
                                   field=f"resourceSpans[{i}]")
            res = rs.get("resource")
            resource = attributes(res.get("attributes") if isinstance(res, dict) else None)
            key = "scopeSpans" if "scopeSpans" in rs else "instrumentationLibrarySpans"
            scopes = rs.get(key) or []
            if not isinstance(scopes, list):
                raise source_error(f"expected a '{key}' list", path, line=line,
                                   field=f"resourceSpans[{i}].{key}")
            for k, ss in enumerate(scopes):
                spans = ss.get("spans") if isinstance(ss, dict) else None
                if not isinstance(spans, list):
                    raise source_error("expected a 'spans' list", path, line=line,
                                       field=f"resourceSpans[{i}].{key}[{k}].spans")
                for n, sp in enumerate(spans):
                    out.append(_span(sp, resource, path, line,
                                     f"resourceSpans[{i}].{key}[{k}].spans[{n}]"))
    return out


def import_otlp(incident: Path, files: Iterable[Path], window: Window | None = None
                ) -> dict[str, int]:
    """Add the spans of ``files`` (inside ``window`` when given, by start) to
    ``incident/traces.json``; returns counts. A file with no span in the window is an input
    error naming it."""
    spans: list[dict[str, Any]] = []
    for path in files:
        got = otlp_spans(Path(path))
        if window is not None:
            got = [s for s in got if window.holds(parse_iso(s["start"], "start"))]
        if not got:
            raise source_error("no span" + (f" in the window {window.text()}" if window
                                            else "") + " (nothing to import)", path)
        spans += got
    total = merge_records(incident, "traces.json", "spans", spans)
    tpath = incident / "traces.json"
    load_spans(orjson.loads(tpath.read_bytes()), tpath)  # what the tools will serve
    return {"spans": len(spans), "errors": sum(s["status"] == "error" for s in spans),
            "total": total}

