"""One case's incident data as the incident tools serve it (docs/bundle-contract.md,
"Incident data"), with a stable evidence id on every record.

A *case dir* is a registry case dir (``case.yaml`` + ``incident/``) or an agent workspace
(``case.json`` + ``incident/``). Only run-visible fields are read: the cluster, the window
and the prompt - never ``judge.yaml``, ``expected.md`` or slicing metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval._vocab import EVIDENCE_CHANNELS
from rcaeval.bundle import GATE_STATUSES, read_case_meta
from rcaeval.errors import InputError
from rcaeval.tools._logstore import (
    SAFE_ID,
    LogLine,
    LogStore,
    MemoryLogStore,
    open_log_store,
    record_time,
)
from rcaeval.tools._traces import load_spans

__all__ = ["CaseData", "LogLine", "load_case_data", "recordable"]

_SAFE_ID = SAFE_ID


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
class CaseData:
    """What the tools serve for one case."""

    case_dir: Path
    cluster_id: str | None = None
    window_start: str | None = None
    window_end: str | None = None
    prompt: str = ""
    topology: dict[str, Any] = field(default_factory=dict)
    ticket: dict[str, Any] | None = None
    log_store: LogStore = field(default_factory=lambda: MemoryLogStore([]))
    series: list[dict[str, Any]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)
    spans: list[dict[str, Any]] = field(default_factory=list)
    unavailable: frozenset[str] = frozenset()

    def data_channels(self) -> list[str]:
        """The evidence channels this incident holds records for (whether or not its
        ``tool_status.json`` marks them unavailable), in vocabulary order."""
        have = {"logs": len(self.log_store) > 0, "metrics": bool(self.series),
                "queries": bool(self.queries), "events": bool(self.events),
                "alerts": bool(self.checks), "traces": bool(self.spans)}
        return [c for c in EVIDENCE_CHANNELS if have.get(c)]

    @property
    def logs(self) -> list[LogLine]:
        """Every log line (read from the store: for an indexed gigabyte, a gigabyte)."""
        return list(self.log_store.lines())

    def data_range(self) -> tuple[str | None, str | None]:
        """The earliest and latest timestamp of any log line, point, event or span."""
        lo, hi = self.log_store.bounds()
        stamps = [at for at in (lo, hi) if at is not None]
        for s in self.series:
            stamps += [t for p in s.get("points") or [] if (t := record_time(p[0])) is not None]
        stamps += [t for e in self.events if (t := record_time(e.get("ts"))) is not None]
        stamps += [record_time(sp["start"]) for sp in self.spans]
        if not stamps:
            return self.window_start, self.window_end
        return _iso(min(stamps)), _iso(max(stamps))  # type: ignore[type-var]


def _iso(dt: datetime) -> str:
    return dt.isoformat().replace("+00:00", "Z")


def load_case_data(case_dir: str | Path, incident_dir: str | Path | None = None, *,
                   log_index: bool | None = None) -> CaseData:
    """Read a case dir's run-visible metadata and its ``incident/`` data (or ``incident_dir``).

    Log lines are served from an index (rcaeval/tools/_logindex.py) when ``log_index`` is
    True, or (None) when the log files hold at least ``RCAEVAL_LOG_INDEX_MIN_BYTES`` bytes
    (32 MiB); otherwise they are parsed into memory. The answers are the same either way.

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
    data.log_store = open_log_store(inc / "logs", indexed=log_index)
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
