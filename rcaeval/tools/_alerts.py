"""``get_alerts``: the alert-rule and gate-check evaluations of the incident
(``incident/alerts.json``), the way alert rules and health gates reach an on-call engineer.

A check is ``{"id", "name", "status", "detail", ...}`` with ``status`` ``fail`` (the rule
fired / the gate failed), ``warn`` (pending, degraded) or ``pass``; optional fields
(``severity``, ``component``, ``instance``, ``ts`` - when it was evaluated or fired - and
``rule``) are served as they are. What is returned is recorded into
``evidences/gate_checks.json`` (docs/tools.md).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from rcaeval.bundle import GATE_STATUSES, BundleError, BundleWriter, parse_time
from rcaeval.tools._data import CaseData

ALERT_LIMIT, ALERT_LIMIT_MAX = 50, 200
SEVERITY_ORDER = {"fail": 0, "warn": 1, "pass": 2}


def alerts_page(data: CaseData, writer: BundleWriter, page: Callable[..., Any],
                bad: type[Exception], *, status: str | None, name_contains: str | None,
                component: str | None, start: datetime | None, end: datetime | None,
                limit: int | None, cursor: str | None) -> dict[str, Any]:
    """One page of checks, failing first (then in data order), recorded into the bundle.

    ``page`` is the tools' pager ``(items, limit, cursor, default, cap)``; ``bad`` the
    error type for a bad argument."""
    if status is not None and status not in GATE_STATUSES:
        raise bad(f"status must be one of {', '.join(GATE_STATUSES)}, got {status!r}")
    hits = []
    for c in data.checks:
        if status and c.get("status") != status:
            continue
        if name_contains and name_contains.lower() not in str(c.get("name", "")).lower():
            continue
        if component and component.lower() not in (str(c.get("component", "")).lower(),
                                                    str(c.get("instance", "")).lower()):
            continue
        if start or end:
            try:
                at = parse_time(c.get("ts"), "ts") if c.get("ts") else None
            except BundleError:
                at = None
            if at is None or (start and at < start) or (end and at > end):
                continue
        hits.append(c)
    hits.sort(key=lambda c: SEVERITY_ORDER.get(str(c.get("status")), 3))
    items, nxt, _ = page(hits, limit, cursor, ALERT_LIMIT, ALERT_LIMIT_MAX)
    ids = writer.add_gate_checks(items)
    out: dict[str, Any] = {"checks": items, "total": len(hits), "next_cursor": nxt,
                           "counts": {s: sum(1 for c in data.checks if c.get("status") == s)
                                      for s in GATE_STATUSES}, "_ids": ids}
    if not data.checks:
        out["note"] = "this incident has no alert-rule or gate-check evaluations"
    return out
