"""The judge-side parts every corpus case shares: detectors that name a component, a reason
or a time, and critical-evidence checks drafted from the case's own telemetry (the series of
the root-cause component that rises most, else its error log lines)."""

from __future__ import annotations

import re
import statistics
from typing import Any

from rcaeval.corpora._csv import Window


def literal_pattern(text: str) -> str:
    """An RE2 pattern matching ``text`` as a whole name (not inside a longer name); between
    its words (runs of letters and digits) any run of other characters matches, so
    ``ts-auth-service`` also matches ``ts auth service`` and ``high disk I/O`` ``high disk
    I-O``."""
    words = re.findall(r"[A-Za-z0-9]+", text)
    body = r"[^A-Za-z0-9]+".join(words) if words else re.escape(text)
    return f"(?:^|[^A-Za-z0-9_-]){body}(?:[^A-Za-z0-9_-]|$)"


def detector(description: str, patterns: list[str], fires: list[str],
             silent: list[str]) -> dict[str, Any]:
    doc: dict[str, Any] = {"description": description, "any": patterns, "scope": "root_cause",
                           "negation": True}
    ex = {k: v for k, v in (("fires", fires), ("silent", silent)) if v}
    if ex:
        doc["examples"] = ex
    return doc


def component_matches(instance: str, component: str) -> bool:
    """Whether a series or log instance belongs to ``component`` (a pod, node or service):
    the instance itself, a dotted part of it (``node-1.adservice-0``), or, for a service,
    one of its pods (``adservice-0``, ``adservice-grpc``)."""
    if instance == component:
        return True
    for part in re.split(r"[.:]", instance):
        if part == component or part.startswith(component + "-") or part.startswith(
                component + "_"):
            return True
    return False


def _rise(points: list[tuple[float, float]]) -> tuple[float, float, float] | None:
    """(score, start level, peak) of a series: the peak over the median of its first tenth."""
    if len(points) < 3:
        return None
    vals = [v for _, v in sorted(points)]
    head = vals[: max(1, len(vals) // 10)]
    base = statistics.median(head)
    peak = max(vals)
    if peak <= base:
        return None
    return (peak - base) / (abs(base) + 1e-9), base, peak


def evidence_checks(window: Window, components: list[str], series: list[dict[str, Any]],
                    ) -> tuple[list[dict[str, Any]], list[str]]:
    """Critical-evidence checks for the root-cause ``components`` and their one-line
    descriptions: per component, the series of it that rises most (threshold halfway
    between its start level and its peak), else a check on its error log lines; when no
    component has either, the window's biggest rise. Never empty when the window has data."""
    checks: list[dict[str, Any]] = []
    seen: set[str] = set()
    rises = []
    for s in series:
        pts = [(0.0 + i, p[1]) for i, p in enumerate(s["points"])]
        r = _rise(pts)
        if r is not None:
            rises.append((r, s))
    for comp in components:
        mine = [(r, s) for r, s in rises if component_matches(s["labels"].get("instance", ""),
                                                                 comp)]
        if mine:
            (score, base, peak), s = max(mine, key=lambda x: x[0][0])
            checks.append(_metric_check(s, base, peak, seen))
            continue
        log = _error_line(window, comp)
        if log is not None:
            checks.append(_log_check(comp, log, seen))
    if not checks and rises:
        (score, base, peak), s = max(rises, key=lambda x: x[0][0])
        checks.append(_metric_check(s, base, peak, seen))
    if not checks:
        for comp in [*components, ""]:
            log = _error_line(window, comp)
            if log is not None:
                checks.append(_log_check(comp or "the system", log, seen))
                break
    if not checks and series:
        s = series[0]
        low = min(p[1] for p in s["points"])
        checks.append(_metric_check(s, low - 1.0, low, seen, rising=False))
    return checks, [c["description"] for c in checks]


def _metric_check(s: dict[str, Any], base: float, peak: float, seen: set[str], *,
                  rising: bool = True) -> dict[str, Any]:
    thr = round(base + (peak - base) / 2, 6)
    inst = s["labels"].get("instance", "")
    cid = _unique(f"{re.sub(r'[^a-z0-9]+', '_', s['name'].lower())[:60]}_{_slug(inst)}",
                  seen)
    what = (f"{s['name']}{{instance={inst}}} rose from {base:g} to {peak:g} in the window "
            f"(threshold halfway: {thr:g})" if rising else
            f"{s['name']}{{instance={inst}}} was fetched (no series rises in the window)")
    return {"id": cid, "description": what, "weight": 1,
            "any_of": [{"method": "numeric_series_any_gt", "file": "metrics.json",
                        "series": s["name"], "labels": dict(s["labels"]), "threshold": thr}]}


def _error_line(window: Window, comp: str) -> str | None:
    for inst, rows in sorted(window.logs.items()):
        if comp and not component_matches(inst, comp):
            continue
        for _, line in sorted(rows):
            parts = line.split(" ", 3)
            if len(parts) == 4 and parts[1] in ("ERROR", "FATAL", "CRITICAL", "PANIC"):
                msg = parts[3].split("] ", 1)[-1].strip()
                if len(msg) >= 4:
                    return msg[:80]
    return None


def _log_check(comp: str, message: str, seen: set[str]) -> dict[str, Any]:
    cid = _unique(f"error_log_{_slug(comp)}", seen)
    return {"id": cid, "description": f"{comp} logged an error: {message!r}", "weight": 1,
            "any_of": [{"method": "keyword_any", "source": "logs", "keywords": [message]}]}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40] or "x"


def _unique(base: str, seen: set[str]) -> str:
    base = base.strip("_") or "evidence"
    cid, n = base, 2
    while cid in seen:
        cid, n = f"{base}_{n}", n + 1
    seen.add(cid)
    return cid
