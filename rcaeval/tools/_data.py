"""One case's incident data as the incident tools serve it (docs/bundle-contract.md,
"Incident data"), with a stable evidence id on every record.

A *case dir* is a registry case dir (``case.yaml`` + ``incident/``) or an agent workspace
(``case.json`` + ``incident/``). Only run-visible fields are read: the cluster, the window
and the prompt - never ``judge.yaml``, ``expected.md`` or slicing metadata.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval.bundle._casemeta import read_case_meta
from rcaeval.bundle._contract import GATE_STATUSES
from rcaeval.bundle._writer import BundleError, parse_time
from rcaeval.errors import InputError
from rcaeval.tools._traces import load_spans

LOG_RE = re.compile(r"^(\S+)\s+([A-Za-z]+)\s+\[([^\]]+)\]\s?(.*)$")
_SAFE_ID = re.compile(r"[^A-Za-z0-9_.:-]+")


def _json(path: Path, what: str) -> Any:
    if not path.is_file():
        return None
    try:
        return orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{what} is not valid JSON: {exc}", file=str(path)) from exc


def _list(doc: Any, key: str, path: Path) -> list[dict[str, Any]]:
    if doc is None:
        return []
    items = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise InputError(f"expected an object with a {key!r} list", file=str(path), field=key)
    return [x for x in items if isinstance(x, dict)]


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


@dataclass
class CaseData:
    """What the tools serve for one case."""

    case_dir: Path
    cluster_id: str | None = None
    window_start: str | None = None
    window_end: str | None = None
    prompt: str = ""
    topology: dict[str, Any] = field(default_factory=dict)
    ticket: dict[str, Any] | None = None
    logs: list[LogLine] = field(default_factory=list)
    series: list[dict[str, Any]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    spans: list[dict[str, Any]] = field(default_factory=list)
    unavailable: frozenset[str] = frozenset()

    def data_range(self) -> tuple[str | None, str | None]:
        """The earliest and latest timestamp of any log line, point or event."""
        stamps = [ln.at for ln in self.logs if ln.at is not None]
        for s in self.series:
            stamps += [_at(p[0]) for p in s.get("points") or [] if _at(p[0]) is not None]
        stamps += [_at(e.get("ts")) for e in self.events if _at(e.get("ts")) is not None]
        stamps += [_at(sp["start"]) for sp in self.spans]
        if not stamps:
            return self.window_start, self.window_end
        return _iso(min(stamps)), _iso(max(stamps))  # type: ignore[type-var]


def _at(value: Any) -> datetime | None:
    try:
        return parse_time(value, "ts")
    except BundleError:
        return None


def _iso(dt: datetime) -> str:
    return dt.isoformat().replace("+00:00", "Z")


def load_case_data(case_dir: str | Path, incident_dir: str | Path | None = None) -> CaseData:
    """Read a case dir's run-visible metadata and its ``incident/`` data (or ``incident_dir``).

    Stable ids: a log line is ``L-<instance>-<line number>`` of its file; series, queries,
    events and alert checks keep the ids the data assigns, else ``M-<name>-<instance>``,
    ``Q-<n>``, ``EV-<n>``, ``G-<n>``; a trace span ``T-<trace_id>-<span_id>``.
    """
    base = Path(case_dir)
    if not base.is_dir():
        raise InputError("case dir not found", file=str(base))
    inc = Path(incident_dir) if incident_dir is not None else base / "incident"
    if not inc.is_dir():
        raise InputError("no incident/ data dir in the case dir", file=str(inc))
    meta = read_case_meta(base)
    topo = _json(inc / "topology.json", "topology.json")
    data = CaseData(case_dir=base, cluster_id=meta.get("cluster_id") or (
        topo or {}).get("cluster_id"), window_start=meta.get("start"),
        window_end=meta.get("end"), prompt=meta.get("prompt") or "")
    status = _json(inc / "tool_status.json", "tool_status.json") or {}
    data.unavailable = frozenset(str(c) for c in status.get("unavailable") or [] if c)
    data.topology = topo if isinstance(topo, dict) else {}
    ticket = _json(inc / "ticket.json", "ticket.json")
    data.ticket = ticket if isinstance(ticket, dict) else None
    for path in sorted((inc / "logs").glob("*.log")) if (inc / "logs").is_dir() else []:
        text = path.read_bytes().decode("utf-8", "replace")
        stem = path.stem  # per file, not per line (a 35 MB log spent a fifth of its start here)
        id_stem = _SAFE_ID.sub("_", stem)
        for no, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            m = LOG_RE.match(line)
            ts, level, comp, msg = m.groups() if m else (None, None, None, line)
            at = _at(ts) if ts else None
            data.logs.append(LogLine(
                id=f"L-{id_stem}-{no:05d}", ts=ts if at else None, at=at,
                level=level.upper() if level else None, component=comp, instance=stem,
                message=msg if at or not m else line))
    mpath = inc / "metrics.json"
    for i, s in enumerate(_list(_json(mpath, "metrics.json"), "series", mpath)):
        labels = {str(k): str(v) for k, v in (s.get("labels") or {}).items()}
        sid = s.get("id") or _SAFE_ID.sub("_", f"M-{s.get('name', 'series')}-"
                                               f"{labels.get('instance', i)}")
        pts = [[p[0], float(p[1])] for p in s.get("points") or []
               if isinstance(p, list) and len(p) == 2 and isinstance(p[1], (int, float))]
        data.series.append({**s, "id": str(sid), "labels": labels, "points": pts})
    qpath = inc / "slow_queries.json"
    for i, q in enumerate(_list(_json(qpath, "slow_queries.json"), "queries", qpath), start=1):
        data.queries.append({"kind": "slow_query", **q, "id": str(q.get("id") or f"Q-{i:04d}")})
    epath = inc / "events.json"
    for i, e in enumerate(_list(_json(epath, "events.json"), "events", epath), start=1):
        data.events.append({**e, "id": str(e.get("id") or f"EV-{i:04d}")})
    cpath = inc / "component_health.json"
    data.components = _list(_json(cpath, "component_health.json"), "components", cpath)
    apath = inc / "alerts.json"
    for i, c in enumerate(_list(_json(apath, "alerts.json"), "checks", apath), start=1):
        for key in ("name", "status", "detail"):
            if not isinstance(c.get(key), str) or not c[key].strip():
                raise InputError(f"check {i} needs a {key} string", file=str(apath),
                                 field=f"checks[{i - 1}].{key}")
        if c["status"] not in GATE_STATUSES:
            raise InputError(f"check {i}: status {c['status']!r} is not one of "
                             + ", ".join(GATE_STATUSES), file=str(apath),
                             field=f"checks[{i - 1}].status")
        data.checks.append({**c, "id": str(c.get("id") or f"G-{i:04d}")})
    tpath = inc / "traces.json"
    data.spans = load_spans(_json(tpath, "traces.json"), tpath)
    return data


def recordable(value: Any, chars: int = 1000) -> Any:
    """An argument as telemetry can record it: integers beyond 64 bits and text UTF-8
    cannot encode (lone surrogates) become escaped strings, long text is cut."""
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**63 else str(value)[:40]
    if isinstance(value, str):
        return value[:chars].encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, Mapping):
        return {recordable(str(k)): recordable(v) for k, v in list(value.items())[:50]}
    if isinstance(value, list | tuple):
        return [recordable(v) for v in value[:50]]
    return recordable(str(value))
