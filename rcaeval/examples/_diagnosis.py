"""The example agents' incident reader and deterministic diagnosis rules (no LLM).

Reads the run-visible ``incident/`` data (docs/bundle-contract.md, "Incident data") and
renders a Markdown diagnosis from simple rules (first match wins):

1. a panic line or a panic termination reason      -> storage/compute node panic
2. an OOM / KILL QUERY / killed-statement line      -> kill-query chain
3. a failing alert or a log line with a known signature (a hot read / write region, a
   stalled GC safe point, PD leader changes, a scrape gap; :mod:`._signatures`)
                                                    -> that mechanism (provisional when the
                                                       data alone cannot confirm it)
4. one instance's CPU >= 3x the others' median      -> hotspot
5. a channel's tool unavailable and nothing found   -> honest missing-data answer
6. nothing abnormal                                 -> likely a false alarm
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval.bundle import CHANNELS as BUNDLE_CHANNELS
from rcaeval.examples._signatures import SIGNATURES, Match, match_signature

CHANNELS = BUNDLE_CHANNELS
PANIC_RE = re.compile(r"\bpanic|fatal error|sigabrt", re.I)
KILL_RE = re.compile(r"kill query|\bkilled\b|out of memory|\boom\b|exceed\w* (?:the )?mem\w* quota"
                     r"|query execution was interrupted|memory limit", re.I)
SIGNATURE_LOG_RE = "|".join(s.pattern.pattern for s in SIGNATURES) + "|heartbeat received"
"""What the agents search the logs for besides warnings and panic / kill lines: every
signature, and the store heartbeats that show the cluster alive."""
LOG_RE = re.compile(r"^(\S+)\s+([A-Za-z]+)\s+\[([^\]]+)\]\s?(.*)$")
GUARDRAILS = ("do not blame a component without direct evidence from this window",
              "a missing channel is missing data, not evidence of health",
              "correlation in time is not causation")


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def load_json(path: Path) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None


def dump_json(path: Path, doc: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE))


@dataclass
class Incident:
    topology: dict[str, Any] = field(default_factory=dict)
    ticket: dict[str, Any] | None = None
    logs: list[dict[str, Any]] = field(default_factory=list)
    series: list[dict[str, Any]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)
    spans: list[dict[str, Any]] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)


def load_incident(root: Path) -> Incident:
    """Read ``root/incident``; an unavailable channel is not read at all."""
    inc_dir = root / "incident"
    status = load_json(inc_dir / "tool_status.json") or {}
    unavailable = sorted({str(c) for c in status.get("unavailable", []) if c})
    inc = Incident(unavailable=unavailable)
    inc.topology = load_json(inc_dir / "topology.json") or {}
    inc.ticket = load_json(inc_dir / "ticket.json")
    if "logs" not in unavailable:
        n = 0
        for path in sorted((inc_dir / "logs").glob("*.log")):
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                if not line.strip():
                    continue
                n += 1
                m = LOG_RE.match(line)
                ts, level, comp, msg = m.groups() if m else (None, None, None, line)
                inc.logs.append({"id": f"L-{n:06d}", "ts": ts, "level": level and level.upper(),
                                 "component": comp, "instance": path.stem, "message": msg})
    if "metrics" not in unavailable:
        doc = load_json(inc_dir / "metrics.json") or {}
        for i, s in enumerate(doc.get("series", [])):
            inst = (s.get("labels") or {}).get("instance", str(i))
            inc.series.append({**s, "id": s.get("id") or f"M-{s.get('name', 'series')}-{inst}"})
    if "queries" not in unavailable:
        doc = load_json(inc_dir / "slow_queries.json") or {}
        for i, q in enumerate(doc.get("queries", []), start=1):
            inc.queries.append({"kind": "slow_query", **q, "id": q.get("id") or f"Q-{i:04d}"})
    if "events" not in unavailable:
        doc = load_json(inc_dir / "events.json") or {}
        for i, e in enumerate(doc.get("events", []), start=1):
            inc.events.append({**e, "id": e.get("id") or f"EV-{i:04d}"})
    inc.components = (load_json(inc_dir / "component_health.json") or {}).get("components", [])
    if "alerts" not in unavailable:
        doc = load_json(inc_dir / "alerts.json") or {}
        for i, a in enumerate(doc.get("checks", []), start=1):
            inc.alerts.append({**a, "id": a.get("id") or f"G-{i:04d}"})
    return inc


@dataclass
class Diagnosis:
    kind: str
    root_cause: str
    key_refs: list[dict[str, str]]
    evidence: list[str]
    ruled_out: list[str]
    actions: list[str]
    next_steps: list[str] = field(default_factory=list)


def _cpu_hotspot(series: list[dict[str, Any]]) -> tuple[str, float, float, str] | None:
    peaks: dict[str, tuple[float, str]] = {}
    for s in series:
        if "cpu" not in str(s.get("name", "")).lower():
            continue
        inst = (s.get("labels") or {}).get("instance", s["id"])
        vals = [float(p[1]) for p in s.get("points", []) if isinstance(p, list) and len(p) == 2]
        if vals and (inst not in peaks or max(vals) > peaks[inst][0]):
            peaks[inst] = (max(vals), s["id"])
    if len(peaks) < 2:
        return None
    top = max(peaks, key=lambda k: peaks[k][0])
    others = statistics.median(v for k, (v, _) in peaks.items() if k != top)
    ratio = peaks[top][0] / max(others, 1e-9)
    return (top, peaks[top][0], ratio, peaks[top][1]) if ratio >= 3.0 else None


def diagnose(inc: Incident) -> Diagnosis:
    panic_logs = [e for e in inc.logs if PANIC_RE.search(e["message"] or "")]
    panic_comps = [c for c in inc.components
                   if PANIC_RE.search(str(c.get("last_termination_reason") or ""))]
    kill_logs = [e for e in inc.logs if KILL_RE.search(e["message"] or "")]
    kill_queries = [q for q in inc.queries if q.get("kind") == "kill"
                    or KILL_RE.search(str(q.get("note") or ""))]
    hotspot = _cpu_hotspot(inc.series)
    restarts = [s for s in inc.series if "restart" in str(s.get("name", "")).lower()
                and any(float(p[1]) > 0 for p in s.get("points", []))]
    ruled: list[str] = []
    if not (panic_logs or panic_comps):
        ruled.append("A node panic was ruled out: no panic lines and no abnormal terminations.")
    if not (kill_logs or kill_queries):
        ruled.append("A kill-query chain was ruled out: no OOM or killed statements were found.")
    if hotspot is None:
        ruled.append("A CPU hotspot was ruled out: instance CPU usage is balanced.")
    if panic_logs or panic_comps:
        first = panic_logs[0] if panic_logs else None
        inst = first["instance"] if first else panic_comps[0].get("instance", "unknown")
        comp = (first or {}).get("component") or panic_comps[0].get("name", "storage")
        what = "TiKV storage node" if "tikv" in str(comp).lower() else f"{comp} node"
        refs = [{"type": "log", "id": e["id"]} for e in panic_logs[:3]]
        refs += [{"type": "metric", "id": s["id"]} for s in restarts[:2]]
        refs += [{"type": "event", "id": e["id"]} for e in inc.events
                 if inst in str(e.get("object", ""))][:2]
        excerpt = (first or {}).get("message") or panic_comps[0].get("last_termination_reason")
        return Diagnosis(
            "panic",
            f"The root cause is a {what} panic on {inst}: the process panicked "
            f"(\"{str(excerpt)[:120]}\") and restarted repeatedly, so requests routed to it "
            "failed or stalled and latency rose.",
            refs, [f"{e['id']} {e['instance']}: {e['message'][:160]}" for e in panic_logs[:3]]
            + [f"{s['id']}: restarts observed" for s in restarts[:2]], ruled,
            ["Isolate the crash-looping node and let replicas take over.",
             "Collect the panic backtrace and check the data it crashed on before restarting."])
    if kill_logs or kill_queries:
        q = max(inc.queries, key=lambda q: float(q.get("max_latency_ms") or 0), default=None)
        inst = (kill_logs[0]["instance"] if kill_logs else (q or {}).get("instance", "unknown"))
        refs = [{"type": "log", "id": e["id"]} for e in kill_logs[:3]]
        refs += [{"type": "query", "id": x["id"]} for x in (kill_queries or ([q] if q else []))[:2]]
        return Diagnosis(
            "kill_query",
            f"The root cause is a kill-query chain on {inst}: a runaway query exhausted its "
            "memory quota, the server killed it (OOM / KILL QUERY), and the killed statements "
            "and their retries drove the error and latency spike.",
            refs, [f"{e['id']} {e['instance']}: {e['message'][:160]}" for e in kill_logs[:3]]
            + [f"{x['id']}: {str(x.get('sql_text', ''))[:100]}" for x in kill_queries[:2]],
            ruled, ["Throttle or rewrite the runaway query and set a per-query memory quota.",
                    "Verify the retries stopped after the query was blocked."])
    sig = match_signature(inc.alerts, inc.logs)
    if sig is not None:
        return _signature_diagnosis(inc, sig, ruled)
    if hotspot is not None:
        inst, peak, ratio, sid = hotspot
        return Diagnosis(
            "hotspot",
            f"The root cause is a hotspot on {inst}: its CPU peaked at {peak:g}, {ratio:.1f}x "
            "the median of the other instances, so requests served by it queued up.",
            [{"type": "metric", "id": sid}], [f"{sid}: CPU peak {peak:g} on {inst}"], ruled,
            ["Split or scatter the hot region / key range.",
             "Check for a hot key pattern in the workload."])
    errors = [sp for sp in inc.spans if sp.get("status") == "error"]
    if errors:
        return _span_diagnosis(inc, errors, ruled)
    if inc.unavailable:
        chans = ", ".join(inc.unavailable)
        return Diagnosis(
            "missing_data",
            f"Root cause undetermined: the {chans} tool(s) were unavailable for this window, "
            "and the evidence that was available shows no abnormal signal. There is "
            "insufficient evidence to name a root cause.",
            [{"type": "metric", "id": s["id"]} for s in inc.series[:1]],
            [f"collection error: {c} unavailable" for c in inc.unavailable], ruled,
            [f"Restore the {chans} tool(s) and re-run the diagnosis.",
             "Do not take disruptive action until the missing data is reviewed."])
    return Diagnosis(
        "no_anomaly",
        "This is likely a false alarm: no panic, restart, killed query or resource hotspot "
        "was found in the incident window.",
        [{"type": "metric", "id": s["id"]} for s in inc.series[:1]],
        [f"{s['id']}: no failure signal" for s in inc.series[:3]] + _warning_note(inc), ruled,
        ["Review the alert threshold.", "Keep monitoring; no remediation is needed now."])


def _span_diagnosis(inc: Incident, errors: list[dict[str, Any]],
                    ruled: list[str]) -> Diagnosis:
    """Error spans and no known signature: the deepest failing span's service and message
    (spans are not citable: the key finding cites that service's error logs, else a
    series)."""
    child = {str(sp.get("parent_span_id")) for sp in errors}
    leaf = next((sp for sp in errors if str(sp.get("span_id")) not in child), errors[0])
    svc, msg = str(leaf.get("service")), str(leaf.get("status_message") or "error")
    logs = [e for e in inc.logs if e.get("level") in ("ERROR", "FATAL")
            and svc.lower() in f"{e.get('instance')} {e.get('component')}".lower()]
    refs = ([{"type": "log", "id": e["id"]} for e in logs[:3]]
            or [{"type": "metric", "id": s["id"]} for s in inc.series[:1]]
            or [{"type": "log", "id": e["id"]} for e in inc.logs[:1]])
    return Diagnosis(
        "error_spans",
        f"The root cause is in {svc}: its {leaf.get('operation')} spans fail with "
        f"{msg!r} ({len(errors)} error spans).",
        refs, [f"{sp.get('id')} {sp.get('service')} {sp.get('operation')}: "
               f"{sp.get('status_message')}" for sp in errors[:3]]
        + [f"{e['id']} {e['instance']}: {str(e['message'])[:160]}" for e in logs[:3]], ruled,
        [f"Fix what {svc}'s failing {leaf.get('operation')} calls depend on.",
         "Verify the error spans stop after the fix."])


def _signature_diagnosis(inc: Incident, m: Match, ruled: list[str]) -> Diagnosis:
    sig = m.signature
    firing = [a for a in inc.alerts if a.get("status") in ("fail", "warn")]
    refs = [{"type": "log", "id": e["id"]} for e in m.logs[:3]]
    refs += [{"type": "event", "id": e["id"]} for e in inc.events
             if e.get("type") == "Warning" or m.instance in str(e.get("object", ""))][:2]
    if not refs:
        refs = [{"type": "metric", "id": s["id"]} for s in inc.series[:1]]
    evidence = [f"alert {a.get('name')} ({a.get('status')}): {a.get('detail')}" for a in firing]
    evidence += [f"{e['id']} {e['instance']}: {str(e['message'])[:160]}" for e in m.logs[:3]]
    evidence += [f"{e['id']} {e.get('object')}: {e.get('reason')}" for e in inc.events
                 if {"type": "event", "id": e["id"]} in refs]
    ruled = [r for r in ruled if not (sig.kind == "read_hotspot" and "CPU hotspot" in r)]
    return Diagnosis(sig.kind, sig.cause.format(inst=m.instance, detail=m.detail), refs,
                     evidence, ruled, list(sig.actions), list(sig.next_steps))


def _warning_note(inc: Incident) -> list[str]:
    """Say so when warnings exist: the rules found no failure signal, not a quiet log."""
    warns = [e for e in inc.logs if e["level"] in ("WARN", "WARNING", "ERROR")]
    if not warns:
        return []
    counts: dict[str, int] = {}
    for e in warns:
        counts[e["message"][:100]] = counts.get(e["message"][:100], 0) + 1
    top = max(counts, key=lambda k: counts[k])
    return [f"{len(warns)} warning/error log lines, none a direct failure signal; most "
            f"frequent ({counts[top]}x): {top}"]


def render_answer(d: Diagnosis) -> str:
    def bullets(items: list[str]) -> str:
        return "\n".join(f"- {x}" for x in items) or "- (none)"

    steps = f"## Next steps\n\n{bullets(d.next_steps)}\n\n" if d.next_steps else ""
    return (f"## Root cause\n\n{d.root_cause}\n\n## Evidence\n\n{bullets(d.evidence)}\n\n"
            f"## Ruled out\n\n{bullets(d.ruled_out)}\n\n{steps}"
            f"## Recommended actions\n\n{bullets(d.actions)}\n")


def render_followup(d: Diagnosis, turn: int, question: str) -> str:
    ids = ", ".join(r["id"] for r in d.key_refs) or "none"
    return (f"## Follow-up {turn - 1}\n\nThe evidence that most directly shows the mechanism: "
            f"{ids}.\n\n" + "\n".join(f"- {x}" for x in d.evidence) + "\n")
