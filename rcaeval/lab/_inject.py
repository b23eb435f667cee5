"""Injecting a scenario's fault into the running lab, reverting it, waiting for its alert and
running its recovery check. Every injection and revert is one JSON line in the lab's injector
log (``logs/injector.jsonl``): the events the live tools serve."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rcaeval._paths import queries_dir
from rcaeval.lab import _faults, _http
from rcaeval.lab._faults import INJECT_ORDER
from rcaeval.lab._procs import LabError, RunAs, read_procs, spawn, stop
from rcaeval.lab._scenario import Scenario, SessionInjector, SqlInjector, StopInjector
from rcaeval.lab._stack import (
    default_dir,
    firing_alerts,
    psql,
    read_state,
    start_component,
    wait_ready,
    write_state,
)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _running(lab_dir: Path) -> dict[str, Any]:
    state = read_state(lab_dir)
    procs = {p.name for p in read_procs(lab_dir) if p.alive()}
    if state is None or "postgres" not in procs or "prometheus" not in procs:
        raise LabError(f"lab: not running in {lab_dir} (run `rcaeval lab up` first)")
    return state


def log_event(lab_dir: Path, record: dict[str, Any]) -> None:
    with open(lab_dir / "logs" / "injector.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps({"ts": _now(), **record}, sort_keys=True) + "\n")


def inject(sc: Scenario, lab_dir: Path | None = None) -> dict[str, Any]:
    """Inject ``sc``'s fault into the running lab; returns the state's scenario record
    (id, injected_at). One scenario at a time: a second is refused until ``revert``."""
    lab_dir = (lab_dir or default_dir()).resolve()
    state = _running(lab_dir)
    if state.get("scenario"):
        raise LabError(f"lab: scenario {state['scenario']['id']} is injected; revert it first")
    inj = sc.injector
    detail: dict[str, Any] = {"kind": inj.kind}
    if isinstance(inj, SqlInjector):
        psql(state, file=inj.file)
        detail["sql"] = (queries_dir() / "lab" / inj.file).read_text(encoding="utf-8")
    elif isinstance(inj, SessionInjector):
        bindir = Path(state["pg_bindir"])
        argv = [str(bindir / "pgbench"), "-n", "-c", str(inj.clients), "-j", "1", "-T",
                "3600", "-f", str(queries_dir() / "lab" / inj.script), "-h", "127.0.0.1",
                "-p", str(state["ports"]["postgres"]), "-U", inj.role, "lab"]
        spawn(lab_dir, f"inject-{sc.id}", argv, order=INJECT_ORDER,
              run_as=RunAs(state["user"], state["uid"], state["gid"]),
              log=lab_dir / "logs" / f"inject-{sc.id}.log")
        detail.update(script=inj.script, clients=inj.clients, role=inj.role)
    elif isinstance(inj, StopInjector):
        proc = next((p for p in read_procs(lab_dir) if p.name == inj.component), None)
        if proc is None or not stop(lab_dir, proc):
            raise LabError(f"lab: component {inj.component} is not running")
        detail["component"] = inj.component
    else:
        detail.update(_faults.inject(lab_dir, state, sc, inj))
    record = {"id": sc.id, "injected_at": _now()}
    state["scenario"] = record
    write_state(lab_dir, state)
    log_event(lab_dir, {"action": "inject", "scenario": sc.id, **detail})
    return record


def revert(sc: Scenario, lab_dir: Path | None = None) -> None:
    """Undo ``sc``'s fault (the revert SQL, stop the held sessions, restart the stopped
    component) and clear the injected scenario."""
    lab_dir = (lab_dir or default_dir()).resolve()
    state = _running(lab_dir)
    inj = sc.injector
    if isinstance(inj, SqlInjector):
        psql(state, file=inj.revert, timeout_s=120)
    elif isinstance(inj, SessionInjector):
        for proc in read_procs(lab_dir):
            if proc.name == f"inject-{sc.id}":
                stop(lab_dir, proc)
    elif isinstance(inj, StopInjector):
        if not any(p.name == inj.component and p.alive() for p in read_procs(lab_dir)):
            start_component(lab_dir, state, inj.component)
            wait_ready(lab_dir, state, inj.component)
    else:
        _faults.revert(lab_dir, state, sc, inj)
    state["scenario"] = None
    from rcaeval.lab._live import CHECKS_SNAPSHOT

    (lab_dir / CHECKS_SNAPSHOT).unlink(missing_ok=True)
    write_state(lab_dir, state)
    log_event(lab_dir, {"action": "revert", "scenario": sc.id, "kind": inj.kind})


def wait_alert(name: str, lab_dir: Path | None = None, *, timeout_s: float) -> dict[str, Any]:
    """Poll Prometheus until alert ``name`` is firing; the alert (with ``after_s``, the
    seconds from the call) or a :class:`LabError` at the deadline."""
    lab_dir = (lab_dir or default_dir()).resolve()
    state = _running(lab_dir)
    started = time.monotonic()
    alert = _http.poll(f"alert {name} firing",
                       lambda: next((a for a in firing_alerts(state) if a["name"] == name),
                                    None), timeout_s=timeout_s, every_s=0.5)
    after = round(time.monotonic() - started, 1)
    if state.get("scenario"):  # the checks as the incident opened (the live tools serve them)
        from rcaeval.lab._live import CHECKS_SNAPSHOT, LabSource

        snap = lab_dir / CHECKS_SNAPSHOT
        tmp = snap.with_suffix(".tmp")
        tmp.write_text(json.dumps(LabSource(lab_dir).live_checks(), indent=1) + "\n")
        tmp.replace(snap)
    return {**alert, "after_s": after}


def instant_query(state: dict[str, Any], promql: str) -> list[dict[str, Any]] | None:
    got = _http.get_json(f"http://127.0.0.1:{state['ports']['prometheus']}/api/v1/query",
                         query=promql)
    if not got or got.get("status") != "success":
        return None
    return got["data"]["result"]


def check_recovery(sc: Scenario, lab_dir: Path | None = None) -> dict[str, Any]:
    """The scenario's recovery check: its PromQL must return a non-empty vector at every
    evaluation for ``hold_s`` seconds, starting within ``within_s`` seconds. Returns
    ``{"resolved": bool, "after_s": seconds until the hold began or None}``."""
    lab_dir = (lab_dir or default_dir()).resolve()
    state = _running(lab_dir)
    rec = sc.recovery
    started = time.monotonic()
    held_since: float | None = None

    def healthy_long_enough() -> bool:
        nonlocal held_since
        now = time.monotonic()
        if instant_query(state, rec.promql):
            held_since = now if held_since is None else held_since
            return now - held_since >= rec.hold_s
        held_since = None
        return False

    try:
        _http.poll(f"recovery of {sc.id}", healthy_long_enough,
                   timeout_s=rec.within_s + rec.hold_s, every_s=1.0)
    except LabError:
        return {"resolved": False, "after_s": None}
    return {"resolved": True, "after_s": round((held_since or started) - started, 1)}
