"""Render one scenario template into concrete incident telemetry (deterministically)."""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from rcaeval.errors import InputError
from rcaeval.synth._template import REF_RE, Anomaly, MetricSpec, Scenario, load_library

ROLES = {"tidb": "sql", "tikv": "storage", "pd": "placement"}
_PLACEHOLDER = re.compile(r"\{(n|conn|region|peer|store|ip|port|ms|cluster)\}")


@dataclass(frozen=True)
class Variation:
    """How a rendering differs from the template: scope and noise only."""

    cluster_id: str | None = None
    shift_min: int = 0
    noise_factor: float = 1.0
    jitter_scale: float = 1.0


@dataclass
class Incident:
    scenario: Scenario
    cluster_id: str
    start: datetime
    end: datetime
    topology: dict[str, Any]
    ticket: dict[str, Any]
    log_lines: list[dict[str, Any]]
    series: list[dict[str, Any]]
    queries: list[dict[str, Any]]
    events: list[dict[str, Any]]
    health: list[dict[str, Any]]
    gate_checks: list[dict[str, Any]]
    refs: dict[str, str] = field(default_factory=dict)

    @property
    def unavailable(self) -> list[str]:
        return list(self.scenario.unavailable)

    def ref(self, token: str) -> tuple[str, str]:
        """``log:panic`` / ``metric:cpu@tikv-1`` -> (type, evidence id)."""
        if token not in self.refs:
            raise InputError(
                f"unresolvable evidence reference {token!r}", file=f"{self.scenario.case_id}.yaml"
            )
        return token.split(":", 1)[0], self.refs[token]

    def render_refs(self, text: str) -> str:
        """Replace ``{log:key}``-style tokens with evidence ids, and ``{cluster}``."""

        def sub(m: re.Match[str]) -> str:
            token = f"{m.group(1)}:{m.group(2)}" + (f"@{m.group(3)}" if m.group(3) else "")
            return self.ref(token)[1]

        return REF_RE.sub(sub, text).replace("{cluster}", self.cluster_id)


def iso(ts: datetime, ms: bool = False) -> str:
    ts = ts.astimezone(UTC)
    if ms:
        return ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"
    return ts.strftime("%Y-%m-%dT%H:%M:%SZ")


def _fill(msg: str, rng: random.Random, cluster: str) -> str:
    def sub(m: re.Match[str]) -> str:
        kind = m.group(1)
        if kind == "cluster":
            return cluster
        if kind == "ip":
            return f"10.0.{rng.randint(0, 15)}.{rng.randint(2, 250)}"
        lo, hi = {
            "n": (1, 99999), "conn": (100000, 999999), "region": (1000, 99999),
            "peer": (1000, 99999), "store": (1, 6), "port": (30000, 65000), "ms": (5, 900),
        }[kind]
        return str(rng.randint(lo, hi))

    return _PLACEHOLDER.sub(sub, msg)


def _component(instance: str) -> str:
    return instance.rsplit("-", 1)[0]


def _shape_value(an: Anomaly, spec: MetricSpec, t: float) -> float | None:
    base = spec.base
    if an.shape == "gap":
        return None if an.start <= t <= an.to else base
    if an.shape == "steps":
        n = max(int(an.value), 0)
        span = max(an.to - an.start, 0.0)
        times = [an.start + (span * i / max(n - 1, 1)) for i in range(n)]
        return base + sum(1 for x in times if x <= t)
    if t < an.start:
        return base
    if an.shape == "level":
        return an.value if t <= an.to else base
    if an.shape == "ramp":
        span = max(an.to - an.start, 1e-9)
        return base + (an.value - base) * min((t - an.start) / span, 1.0)
    # spike: triangular, peaking halfway between from and to
    if t > an.to:
        return base
    mid = (an.start + an.to) / 2
    half = max(mid - an.start, 1e-9)
    return base + (an.value - base) * (1 - abs(t - mid) / half)


def _series(
    spec: MetricSpec, inst: str, start: datetime, minutes: int, rng: random.Random, scale: float
) -> list[list[Any]]:
    points: list[list[Any]] = []
    an = spec.anomaly
    applies = an is not None and (an.instance is None or an.instance == inst)
    for t in range(minutes + 1):
        value: float | None = _shape_value(an, spec, t) if applies and an else spec.base
        if value is None:
            continue
        if not spec.counter and spec.jitter:
            value += rng.uniform(-spec.jitter, spec.jitter) * scale
        points.append([iso(start + timedelta(minutes=t)), round(max(value, 0.0), 3)])
    return points


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def render_incident(sc: Scenario, rng: random.Random, var: Variation | None = None) -> Incident:
    """The concrete telemetry of one scenario under a variation; all randomness from ``rng``."""
    var = var or Variation()
    cluster = var.cluster_id or sc.cluster_id
    start = sc.window.start.astimezone(UTC) + timedelta(minutes=var.shift_min)
    end = start + timedelta(minutes=sc.window.minutes)
    refs: dict[str, str] = {}
    instances = sc.instances()

    def at(minute: float) -> datetime:
        return start + timedelta(milliseconds=round(minute * 60_000))

    topology = {
        "cluster_id": cluster,
        "product": "tidb",
        "components": [
            {"name": _component(i), "instance": i, "role": ROLES[_component(i)]}
            for i in instances
        ],
    }
    ticket = {
        "ticket_id": sc.ticket.ticket_id,
        "source": sc.ticket.source,
        "summary": sc.ticket.summary.replace("{cluster}", cluster),
        "cluster_id": cluster,
        "opened_at": iso(at(min(a.at for a in sc.ticket.alerts))),
        "alerts": [
            {"name": a.name, "state": a.state, "severity": a.severity, "starts_at": iso(at(a.at))}
            for a in sc.ticket.alerts
        ],
    }

    # Logs: scenario lines (with repeats) plus background noise, numbered in time order.
    raw: list[tuple[datetime, str, int, dict[str, Any]]] = []
    seq = 0
    for line in sc.logs:
        times = [line.at]
        if line.every:
            t = line.at + line.every
            while t <= (line.until if line.until is not None else sc.window.minutes):
                times.append(t)
                t += line.every
        for k, t in enumerate(times):
            ts = at(t) + timedelta(milliseconds=rng.randint(0, 999))
            rec = {"instance": line.instance, "level": line.level,
                   "message": _fill(line.msg, rng, cluster),
                   "key": line.key if k == 0 else None}
            raw.append((ts, line.instance, seq, rec))
            seq += 1
    noise = load_library()["noise"]
    per_instance = round(sc.noise_lines * var.noise_factor)
    for inst in instances:
        templates = noise[_component(inst)]
        for _ in range(per_instance):
            tpl = templates[rng.randrange(len(templates))]
            ts = start + timedelta(milliseconds=rng.randint(0, sc.window.minutes * 60_000))
            rec = {"instance": inst, "level": tpl["level"],
                   "message": _fill(tpl["msg"], rng, cluster), "key": None}
            raw.append((ts, inst, seq, rec))
            seq += 1
    raw.sort(key=lambda r: (r[0], r[1], r[2]))
    log_lines: list[dict[str, Any]] = []
    for n, (ts, inst, _, rec) in enumerate(raw, start=1):
        entry = {"id": f"L-{n:06d}", "ts": iso(ts, ms=True), "component": _component(inst),
                 "instance": inst, "level": rec["level"], "message": rec["message"]}
        log_lines.append(entry)
        if rec["key"]:
            refs[f"log:{rec['key']}"] = entry["id"]

    series: list[dict[str, Any]] = []
    for spec in sc.metrics:
        for inst in spec.instances:
            sid = f"M-{_slug(spec.name)}-{inst}"
            refs[f"metric:{spec.key}@{inst}"] = sid
            if len(spec.instances) == 1:
                refs[f"metric:{spec.key}"] = sid
            series.append({
                "id": sid, "name": spec.name, "labels": {"instance": inst, **spec.labels},
                "unit": spec.unit,
                "points": _series(spec, inst, start, sc.window.minutes, rng, var.jitter_scale),
            })

    queries: list[dict[str, Any]] = []
    for q in sc.queries:
        digest = hashlib.sha256(q.sql_text.encode("utf-8")).hexdigest()
        qid = f"Q-{digest[:8]}"
        refs[f"query:{q.key}"] = qid
        queries.append({"id": qid, "digest": digest, "kind": q.kind, "sql_text": q.sql_text,
                        "instance": q.instance, "exec_count": q.exec_count,
                        "avg_latency_ms": q.avg_latency_ms, "max_latency_ms": q.max_latency_ms,
                        "plan": q.plan, "note": q.note})

    events: list[dict[str, Any]] = []
    for n, ev in enumerate(sorted(sc.events, key=lambda e: e.at), start=1):
        eid = f"EV-{n:04d}"
        if ev.key:
            refs[f"event:{ev.key}"] = eid
        events.append({"id": eid, "ts": iso(at(ev.at)), "type": ev.type, "object": ev.object,
                       "reason": ev.reason, "message": ev.message})

    overrides = {h.instance: h for h in sc.component_health}
    health: list[dict[str, Any]] = []
    for inst in instances:
        h = overrides.get(inst)
        health.append({
            "name": _component(inst), "instance": inst, "role": ROLES[_component(inst)],
            "status": h.status if h else "Running",
            "restarts": h.restarts if h else 0,
            "last_termination_reason": h.last_termination_reason if h else None,
            "uptime_s": h.uptime_s if h and h.uptime_s is not None
            else rng.randint(3, 40) * 86_400 + rng.randint(0, 86_399),
        })
    gates: list[dict[str, Any]] = []
    for n, g in enumerate(sc.gate_checks, start=1):
        gate: dict[str, Any] = {"id": f"G-{n:04d}", "name": g.name, "status": g.status,
                                "detail": g.detail}
        if g.instance:
            gate.update(component=_component(g.instance), instance=g.instance)
        gate["ts"] = iso(at(g.at if g.at is not None else sc.window.minutes))
        gates.append(gate)
    return Incident(sc, cluster, start, end, topology, ticket, log_lines, series, queries,
                    events, health, gates, refs)


def raw_log_text(lines: list[dict[str, Any]]) -> str:
    """Lines in the documented incident format: ``<ISO ts> <LEVEL> [<component>] <message>``."""
    return "".join(f"{e['ts']} {e['level']} [{e['component']}] {e['message']}\n" for e in lines)
