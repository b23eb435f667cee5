"""``rcaeval lab selftest`` (and ``make lab``): every scenario end to end on a fresh lab —
inject, wait for the expected alert, a reference agent (by default the oracle) investigates the
live incident through ``rcaeval lab tools`` over MCP and submits its report, the window is
captured into a registry case with the scenario's judge.yaml and the recorded bundle is judged
by the ordinary judge, the fault is reverted and the recovery check runs. One row per scenario:
alert after N s, the verdict, the recovery, the wall time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from rcaeval.errors import InputError
from rcaeval.lab._case import scenario_case
from rcaeval.lab._inject import check_recovery, inject, revert, wait_alert
from rcaeval.lab._procs import LabError
from rcaeval.lab._scenario import Scenario, load_scenario, load_scenarios
from rcaeval.lab._stack import default_dir, down, read_state, up

AGENT_TIMEOUT_S = 300


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
ROLES = ("oracle", "lazy", "wrong")


@dataclass
class ScenarioRun:
    """One scenario of a selftest."""

    scenario: str
    alert: str
    alert_after_s: float | None = None
    verdict: str | None = None
    verdict_reason: str | None = None
    recovery: str | None = None
    recovered_after_s: float | None = None
    wall_s: float = 0.0
    error: str | None = None
    skipped: str | None = None
    bundle: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SelftestReport:
    role: str
    rows: list[ScenarioRun]
    up_s: float
    wall_s: float
    out: Path | None = field(default=None)

    @property
    def ok(self) -> bool:
        """The oracle passes and every scenario recovers; any other agent must not pass."""
        want = (lambda v: v == "pass") if self.role == "oracle" else (lambda v: v != "pass")
        return all(r.skipped or (r.error is None and want(r.verdict)
                                 and r.recovery == "resolved") for r in self.rows)

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "role": self.role, "up_s": round(self.up_s, 1),
                "wall_s": round(self.wall_s, 1), "scenarios": [r.to_dict() for r in self.rows]}

    def table(self) -> str:
        head = ("scenario", "alert", "alert after", "verdict", "recovery", "recovered after",
                "wall")
        body = [(r.scenario, r.alert, _s(r.alert_after_s), r.verdict or "-",
                 f"skipped: {r.skipped}" if r.skipped else r.recovery or "-",
                 _s(r.recovered_after_s), _s(r.wall_s)) for r in self.rows]
        widths = [max(len(str(x)) for x in col) for col in zip(head, *body, strict=True)]
        lines = ["  ".join(str(x).ljust(w) for x, w in zip(row, widths, strict=True)).rstrip()
                 for row in (head, *body)]
        passed = sum(r.verdict == "pass" for r in self.rows)
        resolved = sum(r.recovery == "resolved" for r in self.rows)
        lines += [f"  {r.scenario}: error: {r.error}" for r in self.rows if r.error]
        lines.append(f"{self.role}: {passed}/{len(self.rows)} pass, {resolved}/{len(self.rows)}"
                     f" recovered; lab up {self.up_s:.0f} s, total {self.wall_s:.0f} s")
        return "\n".join(lines)


def _s(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} s"


def run_agent(role: str, plan: dict[str, Any], case_id: str, lab_dir: Path, audit: Path,
              work: Path) -> None:
    """A reference agent (``rcaeval.prove.agent``) investigating the live lab through
    ``rcaeval lab tools`` over MCP (stdio) in a workspace of its own; the workspace's bundle
    is mirrored into the audit dir ``audit`` with a runner manifest, as ``rcaeval run``
    does, so the judge reads it like any run."""
    from rcaeval.runner import mirror_audit

    plans = work / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    (plans / f"{case_id}.json").write_bytes(orjson.dumps(plan))
    workspace = work / "workspace" / f"{case_id}-{role}"
    shutil.rmtree(workspace, ignore_errors=True)
    workspace.mkdir(parents=True)
    cfg = work / "workspace" / f"{case_id}-{role}.mcp.json"
    cfg.write_text(json.dumps({"mcpServers": {"rcaeval": {
        "command": sys.executable,
        "args": ["-m", "rcaeval", "lab", "tools", "--dir", str(lab_dir), "--bundle-dir",
                 str(workspace)]}}}))
    env = {**os.environ, "RCAEVAL_MCP_CONFIG": str(cfg), "RCAEVAL_CASE_ID": case_id,
           "RCAEVAL_TURN": "1"}
    started_at, t0 = _now(), time.monotonic()
    done = subprocess.run([sys.executable, "-m", "rcaeval.prove.agent", "--role", role,
                           "--plans", str(plans)], cwd=workspace, env=env, capture_output=True,
                          text=True, timeout=AGENT_TIMEOUT_S)
    if done.returncode != 0:
        raise LabError(f"lab: the {role} agent failed: {done.stderr.strip()[-400:]}")
    state = read_state(lab_dir) or {}
    mirror_audit(workspace, audit, {
        "run_id": audit.parent.name, "case_id": case_id, "case_ref": f"lab:{case_id}",
        "case_ids_exposed": True, "tools": "mcp", "sandbox": "none",
        "agent": {"name": f"rcaeval.prove.agent --role {role}", "kind": "command"},
        "cluster_id": "lab", "time_window": {"start": (state.get("scenario") or {}).get(
            "injected_at"), "end": _now()}, "status": "completed", "started_at": started_at,
        "finished_at": _now(), "duration_s": round(time.monotonic() - t0, 3),
        "attempts": [], "error": None, "usage": {}}, overwrite=True)


def judge_run(sc: Scenario, registry: Path, lab_dir: Path, bundle: Path) -> tuple[str, str]:
    """Capture the window into the scenario's case and judge ``bundle`` against it; the
    verdict and its reason."""
    from rcaeval.authoring import try_answer

    scenario_case(sc, registry, lab_dir)
    answer = (bundle / "output.txt").read_text(encoding="utf-8")
    got = try_answer(registry, sc.id, answer, bundle=bundle)
    return got.verdict, got.verdict_reason or ""


def _plan(sc: Scenario, registry: Path, lab_dir: Path) -> dict[str, Any]:
    from rcaeval.prove import plan_case
    from rcaeval.registry import load_case

    scenario_case(sc, registry, lab_dir)
    return plan_case(load_case(registry, sc.id)).agent_plan()


def run_scenario(sc: Scenario, lab_dir: Path, work: Path, *, role: str = "oracle"
                 ) -> ScenarioRun:
    """One scenario on the running lab: inject, alert, agent, verdict, revert, recovery."""
    started = time.monotonic()
    row = ScenarioRun(sc.id, sc.expected_alert.name)
    registry = work / "registry"
    bundle = work / "audits" / f"lab-selftest-{role}" / sc.id
    injected = False
    try:
        inject(sc, lab_dir)
        injected = True
        row.alert_after_s = wait_alert(sc.expected_alert.name, lab_dir,
                                       timeout_s=sc.expected_alert.within_s)["after_s"]
        run_agent(role, _plan(sc, registry, lab_dir), sc.id, lab_dir, bundle, work)
        row.bundle = str(bundle)
        row.verdict, row.verdict_reason = judge_run(sc, registry, lab_dir, bundle)
    except LabError as exc:
        row.error = str(exc)
    finally:
        if injected:
            revert(sc, lab_dir)
    rec = check_recovery(sc, lab_dir)
    row.recovery = "resolved" if rec["resolved"] else "not_resolved"
    row.recovered_after_s = rec["after_s"]
    row.wall_s = round(time.monotonic() - started, 1)
    return row


def selftest(lab_dir: Path | None = None, *, scenarios: Sequence[str] = (),
             role: str = "oracle", out: Path | None = None, keep_up: bool = False,
             progress: Callable[[ScenarioRun], None] | None = None) -> SelftestReport:
    """Bring the lab up fresh, run each scenario (default: all) with reference agent
    ``role`` and take the lab down again (unless ``keep_up``). ``out`` keeps the cases and
    bundles (default: a temporary dir, removed)."""
    if role not in ROLES:
        raise InputError(f"the reference agent must be one of {', '.join(ROLES)}, got "
                         f"{role!r}", field="--agent")
    lab_dir = (lab_dir or default_dir()).resolve()
    chosen = [load_scenario(s) for s in scenarios] if scenarios else load_scenarios()
    work = Path(out) if out else Path(tempfile.mkdtemp(prefix="rcaeval-selftest-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    rows: list[ScenarioRun] = []
    try:
        up(lab_dir)
        up_s = time.monotonic() - started
        for sc in chosen:
            if sc.injector.kind == "fill_volume" and os.geteuid() != 0:
                rows.append(ScenarioRun(sc.id, sc.expected_alert.name,
                                        skipped="its tmpfs volume needs root"))
            else:
                rows.append(run_scenario(sc, lab_dir, work, role=role))
            if progress:
                progress(rows[-1])
    finally:
        if not keep_up and read_state(lab_dir) is not None:
            down(lab_dir)
        if out is None:
            shutil.rmtree(work, ignore_errors=True)
    return SelftestReport(role, rows, up_s, time.monotonic() - started,
                          Path(out) if out else None)
