"""The example agents' deterministic rules, and canaries for the ACP library traps."""

from __future__ import annotations

import asyncio.subprocess as aio_subprocess
import inspect

import acp
from acp.client.connection import ClientSideConnection

from rcaeval.examples._diagnosis import Incident, diagnose, render_answer


def _series(name: str, inst: str, values: list[float]) -> dict:
    return {"id": f"M-{name}-{inst}", "name": name, "labels": {"instance": inst},
            "points": [[f"2026-10-03T14:0{i}:00Z", v] for i, v in enumerate(values)]}


def _log(n: int, inst: str, msg: str, level: str = "ERROR") -> dict:
    return {"id": f"L-{n:06d}", "ts": "2026-10-03T14:05:00Z", "level": level,
            "component": "tidb", "instance": inst, "message": msg}


def test_rules_in_priority_order():
    d = diagnose(Incident(logs=[_log(1, "tidb-0", "Out Of Memory Quota! KILL QUERY 42")]))
    assert d.kind == "kill_query" and "kill-query chain on tidb-0" in d.root_cause
    assert d.key_refs == [{"type": "log", "id": "L-000001"}]

    hot = [_series("tikv_cpu", "tikv-0", [0.4, 3.9]), _series("tikv_cpu", "tikv-1", [0.5]),
           _series("tikv_cpu", "tikv-2", [0.6])]
    d = diagnose(Incident(series=hot))
    assert d.kind == "hotspot" and "hotspot on tikv-0" in d.root_cause
    assert any("node panic was ruled out" in r for r in d.ruled_out)

    d = diagnose(Incident(series=hot, logs=[_log(1, "tikv-3", "[panic] boom", "FATAL")]))
    assert d.kind == "panic"  # a panic outranks the hotspot

    d = diagnose(Incident(unavailable=["events", "logs"]))
    assert d.kind == "missing_data" and "insufficient evidence" in d.root_cause
    assert "events, logs" in d.root_cause

    d = diagnose(Incident(series=[_series("qps", "tidb-0", [10, 11])]))
    assert d.kind == "no_anomaly" and "false alarm" in d.root_cause
    text = render_answer(d)
    for heading in ("## Root cause", "## Evidence", "## Ruled out", "## Recommended actions"):
        assert heading in text


def test_alert_signatures_come_after_panic_and_kill_and_before_cpu():
    hot = [_series("tikv_cpu", "tikv-0", [0.4, 3.9]), _series("tikv_cpu", "tikv-1", [0.5]),
           _series("tikv_cpu", "tikv-2", [0.6])]
    gap = {"id": "G-0001", "name": "scrape_health", "status": "fail",
           "detail": "prometheus-k8s-1 missed 6 consecutive scrapes at 03:20-03:26"}
    d = diagnose(Incident(series=hot, alerts=[gap]))
    assert d.kind == "scrape_gap" and "Provisional" in d.root_cause
    assert "missed 6 consecutive scrapes" in d.root_cause and d.next_steps
    assert "## Next steps" in render_answer(d)
    # a passing check says nothing
    d = diagnose(Incident(series=hot, alerts=[{**gap, "status": "pass"}]))
    assert d.kind == "hotspot"
    # a log line with a signature names its busiest instance of the component
    logs = [_log(1, "tidb-0", "server is busy: unified read pool is full", "WARN"),
            *(_log(n, "tikv-1", '["unified-read-pool is full"]', "WARN") for n in (2, 3))]
    d = diagnose(Incident(logs=logs))
    assert d.kind == "read_hotspot" and "CPU hotspot on tikv-1" in d.root_cause
    assert not any("CPU hotspot was ruled out" in r for r in d.ruled_out)
    d = diagnose(Incident(logs=[*logs, _log(9, "tikv-3", "[panic] boom", "FATAL")]))
    assert d.kind == "panic"


def test_acp_library_traps_still_exist():
    """Canaries: if a new agent-client-protocol fixes one of these, revisit rcaeval.runner._acp
    (docs/agents.md, "ACP library traps")."""
    params = inspect.signature(acp.spawn_stdio_transport).parameters
    assert params["stderr"].default == aio_subprocess.PIPE  # undrained stderr pipe
    assert "start_new_session" not in inspect.getsource(acp.spawn_stdio_transport)
    assert set(acp.default_environment()) <= {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
    assert "timeout" not in inspect.signature(ClientSideConnection.prompt).parameters
