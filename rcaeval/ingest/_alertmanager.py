"""Alertmanager ``GET /api/v2/alerts`` responses into ``incident/alerts.json``, the alert
channel ``get_alerts`` serves (docs/import.md, "Alertmanager").

The source format is the v2 API's list of alerts::

    [{"labels": {"alertname": "HighLatency", "severity": "page", "instance": "api-0"},
      "annotations": {"summary": "p99 latency above 2 s"},
      "startsAt": "2026-12-01T22:10:04.123Z", "endsAt": "2026-12-01T22:14:04.123Z",
      "fingerprint": "a1b2c3d4e5f60718", "generatorURL": "http://prom/graph?g0.expr=...",
      "status": {"state": "active", "silencedBy": [], "inhibitedBy": []}, ...}]

(a webhook notification's ``{"alerts": [...]}``, whose ``status`` is ``firing`` or
``resolved``, is read too). Each alert becomes one check: ``name`` is the ``alertname``
label, ``status`` ``fail`` for an active / firing alert, ``warn`` for a suppressed (silenced,
inhibited) or unprocessed one, ``pass`` for a resolved one; ``detail`` the summary and
description annotations; ``ts`` when it started. The id is ``G-am-<fingerprint>``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, urlsplit

import orjson

from rcaeval.ingest._incident import incident_update, merge_records, source_error

ALERTS_FILE, CHECKS_KEY = "alerts.json", "checks"
STATE_STATUS = {"active": "fail", "firing": "fail", "suppressed": "warn",
                "unprocessed": "warn", "resolved": "pass"}
"""An Alertmanager alert state (v2 ``status.state``, or a webhook alert's ``status``) as the
check status ``get_alerts`` serves."""
_COMPONENT_LABELS = ("service", "component", "app", "job")
_INSTANCE_LABELS = ("instance", "pod", "node", "host")
_NEVER = "0001-01-01T00:00:00Z"


@dataclass
class AlertImport:
    """What one import read: the checks (incident records) and a note per alert left out
    (outside the window)."""

    checks: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def _time(value: Any, src: str, where: str) -> datetime:
    if not isinstance(value, str) or not value.strip():
        raise source_error(f"expected an RFC 3339 time, got {value!r:.60}", src, field=where)
    try:
        dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        return (dt if dt.tzinfo else dt.replace(tzinfo=UTC)).astimezone(UTC)
    except (ValueError, OverflowError):  # OverflowError: past year 9999 once in UTC
        raise source_error(f"not an RFC 3339 time: {value!r:.60}", src, field=where) from None


def _iso(dt: datetime) -> str:
    spec = "seconds" if dt.microsecond == 0 else "milliseconds"
    return dt.isoformat(timespec=spec).replace("+00:00", "Z")


def _rule(url: Any) -> str | None:
    """The alert rule's expression from Prometheus's ``generatorURL`` (``g0.expr``)."""
    if not isinstance(url, str) or not url:
        return None
    expr = parse_qs(urlsplit(url).query).get("g0.expr")
    return expr[0] if expr else None


def _state(alert: dict[str, Any], src: str, where: str) -> str:
    status = alert.get("status")
    state = status.get("state") if isinstance(status, dict) else status
    if not isinstance(state, str) or state not in STATE_STATUS:
        raise source_error(f"alert state {state!r:.40} is not one of "
                           + ", ".join(STATE_STATUS), src,
                           field=f"{where}.status" + (".state" if isinstance(status, dict)
                                                      else ""))
    return str(state)


def _strings(alert: dict[str, Any], key: str, src: str, where: str) -> dict[str, str]:
    value = alert.get(key) or {}
    if not isinstance(value, dict):
        raise source_error(f"{key} must be an object of strings", src, field=f"{where}.{key}")
    bad = [k for k, v in value.items() if not isinstance(v, str)]
    if bad:
        raise source_error(f"{key} values must be strings", src,
                           field=f"{where}.{key}.{bad[0]}")
    return dict(value)


def _detail(name: str, state: str, labels: dict[str, str], notes: dict[str, str]) -> str:
    parts: list[str] = []
    for key in ("summary", "description", "message"):
        text = " ".join(notes.get(key, "").split())
        if text and text not in parts:
            parts.append(text)
    if parts:
        return " - ".join(parts)
    shown = ", ".join(f"{k}={v}" for k, v in sorted(labels.items()) if k != "alertname")
    return f"alert {name} {state}" + (f" ({shown})" if shown else "")


def alertmanager_checks(doc: Any, source: str | os.PathLike[str], *,
                        window: tuple[datetime, datetime] | None = None) -> AlertImport:
    """The checks of one ``/api/v2/alerts`` response ``doc`` (parsed JSON; or a webhook
    payload). ``source`` names it in errors; with ``window`` (aware datetimes), only alerts
    active at some moment of it are kept (started by its end, not ended before its start).
    A malformed alert is an :class:`rcaeval.errors.InputError` naming ``source`` and the
    field (``[3].labels.alertname``)."""
    src = str(source)
    if isinstance(doc, dict) and isinstance(doc.get("alerts"), list):
        alerts, base = doc["alerts"], "alerts"
    elif isinstance(doc, list):
        alerts, base = doc, ""
    else:
        raise source_error("expected an Alertmanager /api/v2/alerts response (a JSON list of "
                           "alerts)", src)
    out = AlertImport()
    for i, alert in enumerate(alerts):
        where = f"{base}[{i}]"
        if not isinstance(alert, dict):
            raise source_error("expected an alert object", src, field=where)
        labels = _strings(alert, "labels", src, where)
        notes = _strings(alert, "annotations", src, where)
        name = labels.get("alertname", "").strip()
        if not name:
            raise source_error("the alert has no alertname label", src,
                               field=f"{where}.labels.alertname")
        state = _state(alert, src, where)
        starts = _time(alert.get("startsAt"), src, f"{where}.startsAt")
        ends_raw = alert.get("endsAt")
        ends = None if ends_raw in (None, "", _NEVER) else _time(ends_raw, src,
                                                                 f"{where}.endsAt")
        if window is not None and (starts > window[1] or (ends is not None
                                                          and ends < window[0])):
            out.skipped.append(f"{name} ({_iso(starts)} - {_iso(ends) if ends else 'open'}): "
                               "outside the window")
            continue
        fp = alert.get("fingerprint")
        if not isinstance(fp, str) or not fp.strip():
            fp = hashlib.sha1(orjson.dumps(dict(sorted(labels.items())))).hexdigest()[:16]
        rec: dict[str, Any] = {"id": f"G-am-{fp.strip()}", "name": name,
                               "status": STATE_STATUS[state],
                               "detail": _detail(name, state, labels, notes),
                               "ts": _iso(starts), "state": state}
        if ends is not None:
            rec["ends_at"] = _iso(ends)
        if labels.get("severity"):
            rec["severity"] = labels["severity"]
        comp = next((labels[k] for k in _COMPONENT_LABELS if labels.get(k)), None)
        inst = next((labels[k] for k in _INSTANCE_LABELS if labels.get(k)), None)
        if comp:
            rec["component"] = comp
        if inst:
            rec["instance"] = inst
        if rule := _rule(alert.get("generatorURL")):
            rec["rule"] = rule
        rec["labels"], rec["annotations"] = labels, notes
        out.checks.append(rec)
    return out


def read_alertmanager(path: str | os.PathLike[str], *,
                      window: tuple[datetime, datetime] | None = None) -> AlertImport:
    """The checks of one saved ``/api/v2/alerts`` response file (see
    :func:`alertmanager_checks`); invalid JSON is an error naming the file and the line."""
    from rcaeval._inputs import read_input

    raw = read_input(path, "import")
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise source_error(f"not valid JSON: {exc.msg}", path, line=exc.lineno) from None
    return alertmanager_checks(doc, path, window=window)


def import_alertmanager(paths: Sequence[str | os.PathLike[str]],
                        out: str | os.PathLike[str], *,
                        window: tuple[datetime, datetime] | None = None) -> AlertImport:
    """Import saved ``/api/v2/alerts`` responses into the incident dir ``out`` (created when
    missing) through :func:`rcaeval.ingest.incident_update`, merged by id: a bad file
    changes nothing. A response with no alerts (in the window) is an error."""
    if not paths:
        raise source_error("no /api/v2/alerts response files given", "<arguments>",
                           field="FILE")
    got = AlertImport()
    for p in paths:
        one = read_alertmanager(p, window=window)
        got.checks += one.checks
        got.skipped += one.skipped
    if not got.checks:
        raise source_error("no alerts" + (" in the window" if window else "") + " in "
                           + ", ".join(map(str, paths)), paths[0])
    with incident_update(out) as work:
        merge_records(work, ALERTS_FILE, CHECKS_KEY, got.checks)
    return got
