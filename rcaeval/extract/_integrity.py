"""Evidence integrity → ``raw_evidence_check`` (docs/judge.md, "Sealed evidence").

One row per record of the sealed evidence files (:data:`rcaeval._seal.SEALED_FILES`):

``seal``      ``sealed`` / ``unsealed`` / ``altered`` against the seal key the runner stored
              beside the manifest (``seal.json``); NULL when the run has no key (``--tools
              files``, a bundle not made by the runner: cross-checked against the incident
              data only).
``incident``  ``matches`` / ``contradicts`` against the case's incident data as the tools serve
              it (:func:`rcaeval.tools.load_case_data`); NULL when the record is of a kind or
              an id the incident data cannot confirm, or the case has no incident data.
``detail``    what did not hold, for explain.

Logs: a line the incident has under the record's id must have the record's text; a record
under another id must quote text of the incident's log files. Metric series: the incident's
series of that id (else name and labels) must exist and have every point's finite value at
its timestamp. Alert and gate checks: the incident's check of that id (else name) must exist with
the record's status and detail. Queries and events: a record whose id the incident has must
carry the incident's text for it. The check runs when the audit is read, so re-judging the
stored rows gives the same facts.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from rcaeval._seal import SEALED_FILES, records, seal_state
from rcaeval.errors import InputError

SCHEMA = pa.schema([("file", pa.string()), ("record_id", pa.string()), ("seal", pa.string()),
                    ("incident", pa.string()), ("detail", pa.string())])

RAW_TEXT_CAP = 256 * 1024 * 1024
"""Incident log text searched for quoted lines (beyond it only exact lines are found)."""

_CUT = "... ["

_WHEN_CACHE = 65536
"""Cited timestamps an index keeps parsed (the runs of one case cite the same points); the
cache starts over past this many, so a bundle citing millions of distinct ones stays flat."""


def _ts(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _same(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


class IncidentIndex:
    """The incident data of one case, indexed for the checks above."""

    def __init__(self, case_dir: Path, incident_dir: Path) -> None:
        from rcaeval.tools import load_case_data

        data = load_case_data(case_dir, incident_dir)
        self.log_store = data.log_store  # looked up by id, never materialised line by line
        raw: list[str] = []
        size = 0
        logs_dir = Path(incident_dir) / "logs"
        for path in sorted(logs_dir.glob("*.log")) if logs_dir.is_dir() else []:
            text = path.read_bytes().decode("utf-8", "replace")
            size += len(text)
            if size > RAW_TEXT_CAP:
                break
            raw.append(text)
        self.raw = "\n".join(raw)
        self.series = {s["id"]: s for s in data.series}
        self.series_by_key = {(s.get("name"), tuple(sorted(s["labels"].items()))): s
                              for s in data.series}
        self.checks = {c["id"]: c for c in data.checks}
        self.checks_by_name = {c["name"]: c for c in data.checks}
        self.queries = {q["id"]: q for q in data.queries}
        self.events = {e["id"]: e for e in data.events}
        self._at: dict[int, dict[datetime | None, Any]] = {}
        self._when: dict[str, datetime | None] = {}  # cited timestamps, parsed once

    def log(self, rid: str | None, rec: Mapping[str, Any]) -> str | None:
        msg = rec.get("message")
        if not isinstance(msg, str):
            return None
        quoted = msg.split(_CUT)[0] if _CUT in msg else msg
        real = self.log_store.message(rid) if isinstance(rid, str) else None
        if real is not None:
            return None if msg == real or (quoted != msg and real.startswith(quoted)) else (
                f"log {rid}: the text differs from the incident's line {rid}")
        text = quoted.strip()
        if text and (self.log_store.has_message(text) or text in self.raw):
            return None
        return f"log {rid}: the text is not in the incident's logs"

    def metric(self, rid: str | None, rec: Mapping[str, Any]) -> str | None:
        labels = rec.get("labels") if isinstance(rec.get("labels"), dict) else {}
        real = self.series.get(rid) if rid else None
        if real is None:
            real = self.series_by_key.get((rec.get("name"), tuple(sorted(
                (str(k), str(v)) for k, v in labels.items()))))
        if real is None:
            return f"metric {rid}: no {rec.get('name')} series with these labels in the incident"
        if rec.get("name") not in (None, real.get("name")):
            return f"metric {rid}: names {rec.get('name')}, the incident's {rid} is " \
                f"{real.get('name')}"
        at = self._points(real)
        for p in rec.get("points") or []:
            ts, val = (p[0], p[1]) if isinstance(p, list) and len(p) == 2 else (None, None)
            num = _num(val)
            if num is None or not math.isfinite(num):
                continue  # no value to compare (non-finite values are facts of their own)
            when = self._when.get(ts) if isinstance(ts, str) else None
            if when is None:
                when = _ts(ts)
                if isinstance(ts, str):
                    if len(self._when) >= _WHEN_CACHE:
                        self._when.clear()
                    self._when[ts] = when
            if when not in at:
                return f"metric {rid}: the incident has no point at {ts}"
            if not _same(num, at[when]):
                return f"metric {rid}: {num:g} at {ts}, the incident has {at[when]:g}"
        return None

    def _points(self, series: Mapping[str, Any]) -> dict[datetime | None, Any]:
        """A series' points by parsed timestamp, built once per series of the index (an
        index serves every run of its case in a worker group)."""
        key = id(series)
        at = self._at.get(key)
        if at is None:
            at = self._at[key] = {_ts(p[0]): p[1] for p in series["points"]}
        return at

    def check(self, rid: str | None, rec: Mapping[str, Any]) -> str | None:
        real = self.checks.get(rid) if rid else None
        if real is None:
            real = self.checks_by_name.get(rec.get("name"))
        if real is None:
            return f"alert {rid}: not an alert or gate check of the incident"
        for key in ("status", "detail"):
            if rec.get(key) != real.get(key):
                return f"alert {rid}: its {key} differs from the incident's {real['id']}"
        return None

    def keyed(self, table: dict[str, dict[str, Any]], fields: tuple[str, ...], what: str,
              rid: str | None, rec: Mapping[str, Any]) -> str | None | bool:
        """``False`` when the incident has no record of this id (nothing to confirm)."""
        real = table.get(rid) if rid else None
        if real is None:
            return False
        for key in fields:
            if key in rec and key in real and rec[key] != real[key]:
                return f"{what} {rid}: its {key} differs from the incident's"
        return None

    def judge(self, file: str, rid: str | None, rec: Any) -> tuple[str | None, str | None]:
        if not isinstance(rec, dict):
            return None, None
        if file == "evidences/logs.json":
            problem: str | None | bool = self.log(rid, rec)
        elif file == "evidences/metrics.json":
            problem = self.metric(rid, rec)
        elif file == "evidences/gate_checks.json":
            problem = self.check(rid, rec)
        elif file == "evidences/queries.json":
            problem = self.keyed(self.queries, ("sql_text", "digest", "instance"), "query",
                                 rid, rec)
        elif file == "evidences/events.json":
            problem = self.keyed(self.events, ("reason", "message", "object"), "event", rid,
                                 rec)
        else:
            return None, None
        if problem is False:
            return None, None
        return ("contradicts", str(problem)) if problem else ("matches", None)


def integrity_table(docs: Mapping[str, Any], key: bytes | None, seals: Any,
                    incident: IncidentIndex | None) -> pa.Table:
    """``raw_evidence_check`` payload rows for the parsed evidence files ``docs``
    (bundle-relative name → document)."""
    rows: dict[str, list[Any]] = {name: [] for name in SCHEMA.names}
    for file in SEALED_FILES:
        if file not in docs:
            continue
        for rid, rec in records(file, docs[file]):
            seal = seal_state(key, seals, file, rid, rec) if key else None
            inc, detail = incident.judge(file, rid, rec) if incident else (None, None)
            if seal in ("unsealed", "altered"):
                what = "no seal: the tools never returned it" if seal == "unsealed" else \
                    "its seal does not match: edited after the tools returned it"
                detail = f"{rid}: {what}" + (f"; {detail}" if detail else "")
            for name, value in zip(SCHEMA.names, (file, rid, seal, inc, detail), strict=True):
                rows[name].append(value)
    return pa.table(rows, schema=SCHEMA)


@functools.lru_cache(maxsize=8)
def _index(case_dir: Path, incident_dir: Path) -> IncidentIndex | None:
    try:
        return IncidentIndex(case_dir, incident_dir)
    except (InputError, OSError, ValueError):
        return None  # no usable incident data: nothing is cross-checked


def incident_index(case_dir: Path | None, incident_dir: Path | None = None
                   ) -> IncidentIndex | None:
    """The indexed incident data of a registry case dir (cached), or ``None``."""
    if case_dir is None:
        return None
    inc = Path(incident_dir) if incident_dir is not None else Path(case_dir) / "incident"
    if not inc.is_dir():
        return None
    return _index(Path(case_dir), inc)
