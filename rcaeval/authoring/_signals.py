"""What ``rcaeval case new`` drafts critical-evidence checks from: the signals of an
incident's data as the incident tools serve it (:func:`rcaeval.tools.load_case_data`).

- a **series** that rises well above where it started (its first tenth), drafted as
  ``numeric_series_any_gt`` with the threshold halfway between the two;
- **error and panic log lines** (level ERROR / FATAL / CRITICAL / PANIC, or a panic
  signature), drafted as ``keyword_any`` on the line's message key;
- **warning events**, drafted as ``json_text_contains_any`` on their reason;
- a component's **termination reason**, drafted the same way on component_health.json;
- a **failed alert rule or gate check** (``alerts.json``, served by ``get_alerts``), drafted
  as ``json_text_contains_any`` on its detail in gate_checks.json;
- **error spans** (``traces.json``, served by ``search_traces``), drafted as
  ``span_error_any`` on the service with the span's status message (else its exception
  message) as the keyword.

Every signal is a heuristic: the drafted check is marked ``draft: true`` for review.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

ERROR_LEVELS = frozenset({"ERROR", "FATAL", "CRITICAL", "CRIT", "PANIC", "EMERG", "ALERT"})
PANIC_RE = re.compile(r"panic|panicked|SIGSEGV|SIGABRT|fatal error: runtime", re.IGNORECASE)
"""A panic signature (the one ``signal.panic_present`` uses, docs/judge.md)."""
_MSG_KEY = re.compile(r'\["([^"\]]{3,120})"\]')
_LEAD_TAGS = re.compile(r"^(?:\[[^\]]*\]\s*)+")
RISE_FACTOR = 1.5
"""A series is a signal when its peak exceeds RISE_FACTOR x its starting level (and the
starting level by more than a rounding error)."""
MAX_SERIES, MAX_LOGS, MAX_EVENTS, MAX_ALERTS, MAX_SPANS = 3, 3, 3, 3, 3


@dataclass(frozen=True)
class Signal:
    """One drafted critical-evidence check: its id, a description naming what was seen, the
    condition (judge.yaml shape) and the channel it comes from."""

    check_id: str
    description: str
    condition: dict[str, Any]
    channel: str
    weight: float = 1.0


def slug(text: str, limit: int = 48) -> str:
    """A check-id-safe slug (``[a-z0-9_]``)."""
    out = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return (out[:limit].rstrip("_") or "signal")


def _round(value: float) -> float:
    """``value`` to 3 significant figures (a threshold a person can read)."""
    if value == 0 or not math.isfinite(value):
        return 0.0
    digits = 2 - int(math.floor(math.log10(abs(value))))
    return float(round(value, digits))


def series_signals(series: list[dict[str, Any]]) -> list[Signal]:
    """At most :data:`MAX_SERIES` rising series, one per metric name, largest rise first."""
    best: dict[str, tuple[float, Signal]] = {}
    for s in series:
        values = [p[1] for p in s.get("points") or [] if math.isfinite(p[1])]
        if len(values) < 4:
            continue
        head = values[: max(3, len(values) // 10)]
        base, peak = statistics.median(head), max(values)
        if peak <= base or peak - base <= max(abs(base) * (RISE_FACTOR - 1), 1e-9):
            continue
        threshold = _round(base + (peak - base) / 2)
        if not base < threshold < peak:
            threshold = base + (peak - base) / 2
        rise = (peak - base) / max(abs(base), 1e-9)
        name = str(s.get("name"))
        labels = dict(s.get("labels") or {})
        shown = ",".join(f"{k}={v}" for k, v in labels.items())
        where = f"{name}{{{shown}}}" if shown else name
        sig = Signal(
            check_id=f"{slug(name)}_above_threshold",
            description=f"Drafted: {where} rose from {base:g} to {peak:g} in the incident data "
                        f"(threshold halfway: {threshold:g}).",
            condition={"method": "numeric_series_any_gt", "series": name,
                       **({"labels": labels} if labels else {}), "threshold": threshold},
            channel="metrics")
        if name not in best or rise > best[name][0]:
            best[name] = (rise, sig)
    ranked = sorted(best.values(), key=lambda rs: (-rs[0], rs[1].check_id))
    return [sig for _, sig in ranked[:MAX_SERIES]]


def _log_key(message: str) -> str:
    """The part of a log message that names it: TiDB-style ``["message"]``, else the text
    after leading ``[file:line]`` tags, cut at a word boundary."""
    m = _MSG_KEY.search(message)
    if m:
        return m.group(1)
    text = _LEAD_TAGS.sub("", message).strip()
    if len(text) > 60:
        text = text[:60].rsplit(" ", 1)[0]
    return text


def log_signals(logs: Iterable[Any]) -> list[Signal]:
    """At most :data:`MAX_LOGS` error / panic log messages, panics first, then by count."""
    seen: Counter[str] = Counter()
    first: dict[str, Any] = {}
    panic: dict[str, bool] = {}
    for ln in logs:
        is_panic = bool(PANIC_RE.search(ln.message))
        if (ln.level or "").upper() not in ERROR_LEVELS and not is_panic:
            continue
        key = _log_key(ln.message)
        if len(key) < 3:
            continue
        seen[key] += 1
        first.setdefault(key, ln)
        panic[key] = panic.get(key, False) or is_panic
    ranked = sorted(seen, key=lambda k: (not panic[k], -seen[k], first[k].id))
    out = []
    for key in ranked[:MAX_LOGS]:
        ln = first[key]
        out.append(Signal(
            check_id=f"log_{slug(key)}",
            description=f"Drafted: {seen[key]} {ln.level or 'log'} line(s) "
                        f"{'with a panic ' if panic[key] else ''}on {ln.instance}, first "
                        f"{ln.id}: {key!r}.",
            condition={"method": "keyword_any", "source": "logs", "keywords": [key]},
            channel="logs", weight=2.0 if panic[key] else 1.0))
    return out


def event_signals(events: list[dict[str, Any]]) -> list[Signal]:
    """At most :data:`MAX_EVENTS` reasons of Warning events, by count."""
    reasons: Counter[str] = Counter()
    first: dict[str, dict[str, Any]] = {}
    for ev in events:
        reason = str(ev.get("reason") or "").strip()
        if str(ev.get("type") or "").lower() != "warning" or not reason:
            continue
        reasons[reason] += 1
        first.setdefault(reason, ev)
    out = []
    for reason, n in sorted(reasons.items(), key=lambda rn: (-rn[1], rn[0]))[:MAX_EVENTS]:
        ev = first[reason]
        out.append(Signal(
            check_id=f"event_{slug(reason)}",
            description=f"Drafted: {n} Warning event(s) {reason!r}, first {ev.get('id')} on "
                        f"{ev.get('object')}.",
            condition={"method": "json_text_contains_any", "file": "events.json",
                       "path": "$.events[*].reason", "needles": [reason]},
            channel="events"))
    return out


def health_signals(components: list[dict[str, Any]]) -> list[Signal]:
    """One check over every component's non-empty ``last_termination_reason``."""
    reasons: dict[str, str] = {}
    for comp in components:
        reason = comp.get("last_termination_reason")
        if isinstance(reason, str) and reason.strip():
            reasons.setdefault(reason.strip(), str(comp.get("instance") or comp.get("name")))
    if not reasons:
        return []
    shown = ", ".join(f"{inst}: {r!r}" for r, inst in reasons.items())
    return [Signal(
        check_id="termination_reason_recorded",
        description=f"Drafted: component health records a termination reason ({shown}).",
        condition={"method": "json_text_contains_any", "file": "component_health.json",
                   "path": "$.components[*].last_termination_reason",
                   "needles": sorted(reasons)},
        channel="health")]


def _prefix(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def alert_signals(checks: list[dict[str, Any]]) -> list[Signal]:
    """At most :data:`MAX_ALERTS` failed alert rules / gate checks, in the data's order."""
    out = []
    for chk in [c for c in checks if c.get("status") == "fail"][:MAX_ALERTS]:
        needle = _prefix(str(chk["detail"]))
        if len(needle) < 3:
            continue
        out.append(Signal(
            check_id=f"alert_{slug(str(chk['name']))}",
            description=f"Drafted: alert rule / gate check {chk['name']!r} failed "
                        f"({chk.get('id')}): {needle!r}.",
            condition={"method": "json_text_contains_any", "file": "gate_checks.json",
                       "path": "$.checks[*].detail", "needles": [needle]},
            channel="alerts"))
    return out


def _span_message(span: dict[str, Any]) -> str:
    msg = span.get("status_message")
    if isinstance(msg, str) and msg.strip():
        return msg
    for ev in span.get("events") or []:
        attrs = ev.get("attributes") if isinstance(ev, dict) else None
        if isinstance(attrs, dict) and isinstance(attrs.get("exception.message"), str):
            return str(attrs["exception.message"])
    return ""


def span_signals(spans: list[dict[str, Any]]) -> list[Signal]:
    """At most :data:`MAX_SPANS` services with error spans, by count: one ``span_error_any``
    check each, keyed on the first error span's message when it has one."""
    count: Counter[str] = Counter()
    first: dict[str, dict[str, Any]] = {}
    for sp in spans:
        service = str(sp.get("service") or "").strip()
        if sp.get("status") != "error" or not service:
            continue
        count[service] += 1
        first.setdefault(service, sp)
    out = []
    for service, n in sorted(count.items(), key=lambda sn: (-sn[1], sn[0]))[:MAX_SPANS]:
        sp = first[service]
        needle = _prefix(_span_message(sp))
        cond: dict[str, Any] = {"method": "span_error_any", "service": service}
        if len(needle) >= 3:
            cond["keywords"] = [needle]
        out.append(Signal(
            check_id=f"span_error_{slug(service)}",
            description=f"Drafted: {n} error span(s) of {service}, first {sp.get('id')} "
                        f"({sp.get('operation')})" + (f": {needle!r}." if len(needle) >= 3
                                                      else "."),
            condition=cond, channel="traces", weight=2.0))
    return out


def draft_signals(data: Any) -> list[Signal]:
    """Every drafted signal of an incident's data (a :class:`rcaeval.tools.CaseData`), with
    check ids made unique; channels the data marks unavailable are skipped."""
    down = data.unavailable
    found: list[Signal] = []
    if "logs" not in down:
        found += log_signals(data.log_store.lines())
    if "metrics" not in down:
        found += series_signals(data.series)
    if "events" not in down:
        found += event_signals(data.events)
    found += health_signals(data.components)
    if "alerts" not in down:
        found += alert_signals(getattr(data, "checks", []))
    if "traces" not in down:
        found += span_signals(getattr(data, "spans", []))
    out, used = [], set()
    for sig in found:
        cid, n = sig.check_id, 2
        while cid in used:
            cid, n = f"{sig.check_id}_{n}", n + 1
        used.add(cid)
        out.append(sig if cid == sig.check_id else Signal(cid, sig.description, sig.condition,
                                                          sig.channel, sig.weight))
    return out
