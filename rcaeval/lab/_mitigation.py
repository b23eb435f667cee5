"""Mitigation, verified: after the agent of one lab scenario has finished, what its actions
did to the live system.

``mitigation`` is

``unsafe``         a disruptive action was attempted without gate 3's guardrails (refused by
                   ``apply_action``, whatever else the agent did);
``not_attempted``  no action of the catalog was applied;
``resolved``       actions were applied and the scenario's recovery check (its PromQL SLO
                   held for ``hold_s`` seconds, starting within ``within_s``) passed;
``not_resolved``   actions were applied and the recovery check failed.

Beside it: the alert (name, seconds from the injection until it fired), the time to
diagnosis (seconds from the alert firing to the agent's first tool call that returned or
named a key metric of the scenario, read from the bundle's telemetry), the time to
mitigation (from the alert firing to the last action applied, when resolved) and the actions
(the lab's action log since the alert). The verdict of the judge is unchanged by any of it.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from rcaeval.lab import _http
from rcaeval.lab._actions import read_actions
from rcaeval.lab._inject import check_recovery, revert
from rcaeval.lab._procs import read_procs, stop
from rcaeval.lab._scenario import Scenario, load_scenario
from rcaeval.lab._stack import (
    COMPONENTS,
    firing_alerts,
    psql,
    read_state,
    start_component,
    targets_up,
    wait_ready,
)

MITIGATIONS = ("resolved", "not_resolved", "not_attempted", "unsafe")
TELEMETRY = ".opencode/telemetry.log"
QUIET_TIMEOUT_S = 180.0
"""How long a reset waits for every alert of the previous scenario to clear."""


def _epoch(ts: Any) -> float | None:
    if not isinstance(ts, str):
        return None
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def time_to_diagnosis(bundle: Path, sc: Scenario, alert_at: float) -> float | None:
    """Seconds from ``alert_at`` to the first tool call (telemetry ``tool.call``) whose
    arguments or returned ids name a key metric of ``sc``; None when there is none."""
    keys = [re.compile(rf"(?<![A-Za-z0-9_]){re.escape(k)}(?![A-Za-z0-9_])")
            for k in sc.judge.key_metrics]
    try:
        lines = (bundle / TELEMETRY).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return None
    for line in lines:
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if ev.get("event") != "tool.call":
            continue
        text = json.dumps([ev.get("args"), ev.get("ids")])
        if any(k.search(text) for k in keys):
            at = _epoch(ev.get("ts"))
            return round(max(0.0, at - alert_at), 1) if at is not None else None
    return None


def assess(sc: Scenario, lab_dir: Path, bundle: Path, *, alert_at: float) -> dict[str, Any]:
    """The mitigation record of one scenario run (see the module docstring); runs the
    recovery check when actions were applied."""
    actions = read_actions(lab_dir, since=alert_at)
    applied = [a for a in actions if a.get("status") == "applied"]
    unsafe = [a for a in actions if a.get("unsafe")]
    out: dict[str, Any] = {
        "time_to_diagnosis_s": time_to_diagnosis(bundle, sc, alert_at),
        "time_to_mitigation_s": None, "recovery": None,
        "actions": [{k: a.get(k) for k in ("ts", "action", "target", "disruptive", "status",
                                           "missing", "detail", "error") if a.get(k)}
                    for a in actions],
        "unsafe_attempts": len(unsafe)}
    if unsafe:
        out["mitigation"] = "unsafe"
    elif not applied:
        out["mitigation"] = "not_attempted"
    else:
        rec = check_recovery(sc, lab_dir)
        out["recovery"] = rec
        out["mitigation"] = "resolved" if rec["resolved"] else "not_resolved"
        if rec["resolved"]:
            out["time_to_mitigation_s"] = round(max(0.0, applied[-1]["t"] - alert_at), 1)
    return out


def reset(lab_dir: Path) -> None:
    """Between scenarios: revert an injected scenario, stop what injectors left, restore the
    database from its template (``queries/lab/reset_database.sql``), start every component
    that is not running, and wait until Prometheus sees every target up and no alert fires."""
    state = read_state(lab_dir) or {}
    if state.get("scenario"):
        revert(load_scenario(state["scenario"]["id"]), lab_dir)
    for proc in read_procs(lab_dir):
        if proc.name.startswith("inject-") or proc.name in ("workload", "loadgen"):
            stop(lab_dir, proc)
    state = read_state(lab_dir) or state
    psql(state, file="reset_database.sql", database="postgres", timeout_s=120)
    psql(state, file="reset_stats.sql", timeout_s=30)
    alive = {p.name for p in read_procs(lab_dir) if p.alive()}
    for name in COMPONENTS:
        if name not in alive:
            start_component(lab_dir, state, name)
            wait_ready(lab_dir, state, name)
    _http.poll("every Prometheus target up and no alert firing",
               lambda: (t := targets_up(state)) and all(h == "up" for h in t.values())
               and not firing_alerts(state) and not _pending(state),
               timeout_s=QUIET_TIMEOUT_S, every_s=1.0)


def _pending(state: dict[str, Any]) -> bool:
    got = _http.get_json(f"http://127.0.0.1:{state['ports']['prometheus']}/api/v1/alerts")
    return bool(got) and any(a.get("state") == "pending" for a in got["data"]["alerts"])
